"""মডেলের precision check-up (পাঠ ১০): যেকোনো nn.Module-এর এক step FP32-এ আর প্রতিটি ১৬-বিট precision-এ চালিয়ে
কোথায় overflow, underflow, বড় ত্রুটি, কোন op কোন dtype-এ চলল, খরচ কত — আর কোন precision নেওয়া উচিত।

প্রতিটি নাম তার নিজের মডিউল থেকে import করো, যেমন `from mishran.checkup.run import checkup`।
"""
