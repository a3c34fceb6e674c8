"""মাপা: সময়, মেমরির খাতা, profiler, FLOP আর MFU, bench, DeepSpeed-এর ভেতরের সংখ্যা।
"""
