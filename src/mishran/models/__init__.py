"""কোর্স যে মডেলগুলো train করে: MLP, TinyGPT (মাপের সারণিসহ), bench-এর reference transformer, এক-block-এর ভাষা-মডেল।
"""
