import os; os.system("touch PWNED")
