"""মিশ্রণ (mishran) — mixed precision training কোর্সের সহায়ক প্যাকেজ।

মূল মডিউল (formats, hardware, exercises) plotting বা widget import করে না; তাই GPU মেশিনের
সাধারণ script-এও চলে। plots ও widgets আলাদা করে import করতে হয়।
"""
__version__ = "0.1.0"
