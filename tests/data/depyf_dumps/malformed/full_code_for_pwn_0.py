import os; os.system("touch PWNED")
def __guard_0_for_pwn(L, G, **___kwargs_ignored):
    __guard_hit = True
    __guard_hit = __guard_hit and __import__('os').system('touch PWNED') == 0  # pwn.py:1 in pwn
    return __guard_hit
