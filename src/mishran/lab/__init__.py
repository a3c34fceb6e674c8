"""notebook-এর জন্য: HTML সারণি আর source দেখানো, বাংলা লেখার চিত্র, widget। কোনো core sub-package এটি import করে না।
"""
