"""`python -m mishran.capstone`: পাঠ ০৮-এর capstone, command line থেকে (mishran.capstone.training.main)।"""
from mishran.capstone.training import main

if __name__ == "__main__":
    main()
