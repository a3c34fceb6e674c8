"""প্রশিক্ষণের engine: AMP-এর এক step আর তার loop, DeepSpeed, FSDP2, DDP, gloo process চালু করা, কয়েক GPU-র launcher।
"""
