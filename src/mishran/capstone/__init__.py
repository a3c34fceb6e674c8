"""পাঠ ০৮-এর capstone: বাংলা সাহিত্যের সংকলন, মূল্যায়ন (bpc, bigram, নমুনা), প্রশিক্ষণ, আর শিক্ষকের যাচাই।

`python -m mishran.capstone ...` চালায় training.main।
"""
