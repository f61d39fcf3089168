
# Note: the following variables are used inside the guard function.
___check_obj_id = '''<built-in function check_obj_id>'''
def __guard_0_for_forward(L, G, **___kwargs_ignored):
    __guard_hit = True
    __guard_hit = __guard_hit and torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None  # _dynamo/output_graph.py:1135 in init_ambient_guards
    __guard_hit = __guard_hit and L['self'].count == 0                                          # self.count += 1  # café/module_counter.py:17 in forward
