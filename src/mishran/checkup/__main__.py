"""`python -m mishran.checkup`: মডেলের precision check-up, command line থেকে (mishran.checkup.command.main)।"""
from mishran.checkup.command import main

if __name__ == "__main__":
    main()
