"""সংখ্যার ফরম্যাট বিট থেকে: ফরম্যাট আর rounding, loss scaler আর underflow-এর হিসাব, FP8-এর scaling, INT8, তারে-পাঠানো যোগফল।

এই sub-package কোর্সের আর কিছু import করে না (শুধু checks)।
"""
