"""অনুশীলনীর যাচাই (check functions), পাঠ অনুযায়ী আলাদা মডিউলে: core (সব পাঠের সাধারণ অংশ), lesson01, lesson02, ...

নোটবুক নেয় নিজের পাঠের মডিউল থেকে, যেমন `from mishran.exercises.lesson01 import check_e4m3_max`।
উত্তর (answer key) কোনো public নাম নয়; একটি পাঠের মডিউল অন্য পাঠের মডিউল import করে না।
"""
