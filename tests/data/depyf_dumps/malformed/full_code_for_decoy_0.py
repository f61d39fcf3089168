DOC = """
def __guard_0_for_decoy(L, G, **___kwargs_ignored):
    __guard_hit = True
    __guard_hit = __guard_hit and L['x'] == 1
    return __guard_hit
"""
