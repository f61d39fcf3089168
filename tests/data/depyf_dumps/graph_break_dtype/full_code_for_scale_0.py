
# Note: the following variables are used inside the guard function.
___check_tensors = '''None'''
___check_tensors_verbose = '''None'''
___check_global_state = '''<built-in method check of torch._C._dynamo.guards.GlobalStateGuard object at 0x7f1a70ee63f0>'''
___check_torch_function_mode_stack = '''<function make_torch_function_mode_stack_guard.<locals>.check_torch_function_mode_stack at 0x7f1a6e8b5a80>'''
IsNonOverlappingAndDenseIndicator = '''<function _eval_is_non_overlapping_and_dense_flat at 0x7f1a71bfb560>'''
cast_symbool_to_symint_guardless = '''<function cast_symbool_to_symint_guardless at 0x7f1a71bfb4c0>'''
math = '''<module 'math' from '/root/.pyenv/versions/3.11.7/lib/python3.11/lib-dynload/math.cpython-311-x86_64-linux-gnu.so'>'''
torch = '''<module 'torch' from '/work/main/.venv/lib/python3.11/site-packages/torch/__init__.py'>'''
___check_type_id = '''<built-in function check_type_id>'''
___check_obj_id = '''<built-in function check_obj_id>'''
___odict_getitem = '''<method '__getitem__' of 'dict' objects>'''
___key_to_id = '''<function key_to_id at 0x7f1a71974ea0>'''
___dict_version = '''<built-in function dict_version>'''
___dict_contains = '''<function _get_closure_vars.<locals>.<lambda> at 0x7f1a6f36ccc0>'''
___tuple_iterator_len = '''<method '__length_hint__' of 'tuple_iterator' objects>'''
___normalize_count_iter = '''<function normalize_count_iter at 0x7f1a71974720>'''
___normalize_range_iter = '''<function normalize_range_iter at 0x7f1a719747c0>'''
___tuple_iterator_getitem = '''<function tuple_iterator_getitem at 0x7f1a719745e0>'''
___dataclass_fields = '''<function dataclass_fields at 0x7f1a71974680>'''
___namedtuple_fields = '''<function _get_closure_vars.<locals>.<lambda> at 0x7f1a6f36cea0>'''
___get_torch_function_mode_stack_at = '''<function get_torch_function_mode_stack_at at 0x7f1a7196d440>'''
___get_current_stream = '''<function get_current_stream at 0x7f1a7196d620>'''
__math_isnan = '''<built-in function isnan>'''
__numpy_isnan = '''<ufunc 'isnan'>'''
inf = '''inf'''
__load_module = '''<function import_module at 0x7f1a9489d260>'''
utils_device = '''<module 'torch.utils._device' from '/work/main/.venv/lib/python3.11/site-packages/torch/utils/_device.py'>'''
device = '''<class 'torch.device'>'''
___from_numpy = '''<function from_numpy at 0x7f1a7159b420>'''
___as_tensor = '''<function _as_tensor_fullprec at 0x7f1a73297880>'''
inspect = '''<module 'inspect' from '/root/.pyenv/versions/3.11.7/lib/python3.11/inspect.py'>'''
def __guard_1_for_torch_dynamo_resume_in_scale_at_10(L, G, **___kwargs_ignored):
    __guard_hit = True
    __guard_hit = __guard_hit and torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None  # _dynamo/output_graph.py:1135 in init_ambient_guards
    __guard_hit = __guard_hit and ___check_global_state() against {"allow_bf16_reduce":0,"allow_fp16_reduce":0,"allow_tf32":false,"autocast_state":{"cached_enabled":true,"dtype":[15,5,5,15,5,5,15,15,5,5],"enabled":[false,false,false,false,false,false,false,false,false,false]},"default_dtype":6,"deterministic_algorithms":false,"deterministic_algorithms_warn_only":false,"grad_mode":true,"num_threads":2,"torch_function":true,"torch_function_all_disabled":false}
    __guard_hit = __guard_hit and ___check_torch_function_mode_stack()
    __guard_hit = __guard_hit and utils_device.CURRENT_DEVICE == None                           # _dynamo/output_graph.py:1122 in init_ambient_guards
    __guard_hit = __guard_hit and check_tensor(L['y'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float64, device=None, requires_grad=False, size=[3], stride=[1])  # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_dynamic_indices') == False           # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_weak_dynamic_indices') == False      # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_unbacked_indices') == False          # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_strict_unbacked_indices') == False   # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_static_indices') == False            # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    return __guard_hit

# Note: please refer to the graph code in __compiled_fn_19_e98e5720_306b_4eea_ad12_315a21eb34f4*.py.
# Captured Graph: Dynamo generated graph (debuggable when using eager backend).
# Joint graph: joint forward+backward graph from aot autograd.
# Forward graph: forward graph from aot autograd (debuggable when using aot_eager backend).
# Backward graph: backward graph from aot autograd (debuggable when using aot_eager backend).
# AFTER XXX: graph processed by inductor (not debuggable).
def __compiled_fn_19_e98e5720_306b_4eea_ad12_315a21eb34f4(*args, **kwargs):
    pass

def __transformed_code_1_for_torch_dynamo_resume_in_scale_at_10(__nested_resume_fns, __nested_frame_values, ___stack0, y):
    __is_tracing_resume_prologue = None; x = None # this line helps Python to generate bytecode with at least the same number of local variables as the original function
    tmp_1 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter
    tmp_2 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter()
    tmp_3 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit
    __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit(tmp_2)
    graph_out_0 = __compiled_fn_19_e98e5720_306b_4eea_ad12_315a21eb34f4(y)
    []
    []
    __temp_97 = []
    __temp_97.extend([])
    [__temp_97]
    return graph_out_0[0]


# Note: the following variables are used inside the guard function.
___check_tensors = '''None'''
___check_tensors_verbose = '''None'''
___check_global_state = '''<built-in method check of torch._C._dynamo.guards.GlobalStateGuard object at 0x7f1a6e8db9f0>'''
___check_torch_function_mode_stack = '''<function make_torch_function_mode_stack_guard.<locals>.check_torch_function_mode_stack at 0x7f1a6f220f40>'''
IsNonOverlappingAndDenseIndicator = '''<function _eval_is_non_overlapping_and_dense_flat at 0x7f1a71bfb560>'''
cast_symbool_to_symint_guardless = '''<function cast_symbool_to_symint_guardless at 0x7f1a71bfb4c0>'''
math = '''<module 'math' from '/root/.pyenv/versions/3.11.7/lib/python3.11/lib-dynload/math.cpython-311-x86_64-linux-gnu.so'>'''
torch = '''<module 'torch' from '/work/main/.venv/lib/python3.11/site-packages/torch/__init__.py'>'''
___check_type_id = '''<built-in function check_type_id>'''
___check_obj_id = '''<built-in function check_obj_id>'''
___odict_getitem = '''<method '__getitem__' of 'dict' objects>'''
___key_to_id = '''<function key_to_id at 0x7f1a71974ea0>'''
___dict_version = '''<built-in function dict_version>'''
___dict_contains = '''<function _get_closure_vars.<locals>.<lambda> at 0x7f1a6f36ccc0>'''
___tuple_iterator_len = '''<method '__length_hint__' of 'tuple_iterator' objects>'''
___normalize_count_iter = '''<function normalize_count_iter at 0x7f1a71974720>'''
___normalize_range_iter = '''<function normalize_range_iter at 0x7f1a719747c0>'''
___tuple_iterator_getitem = '''<function tuple_iterator_getitem at 0x7f1a719745e0>'''
___dataclass_fields = '''<function dataclass_fields at 0x7f1a71974680>'''
___namedtuple_fields = '''<function _get_closure_vars.<locals>.<lambda> at 0x7f1a6f36cea0>'''
___get_torch_function_mode_stack_at = '''<function get_torch_function_mode_stack_at at 0x7f1a7196d440>'''
___get_current_stream = '''<function get_current_stream at 0x7f1a7196d620>'''
__math_isnan = '''<built-in function isnan>'''
__numpy_isnan = '''<ufunc 'isnan'>'''
inf = '''inf'''
__load_module = '''<function import_module at 0x7f1a9489d260>'''
utils_device = '''<module 'torch.utils._device' from '/work/main/.venv/lib/python3.11/site-packages/torch/utils/_device.py'>'''
device = '''<class 'torch.device'>'''
___from_numpy = '''<function from_numpy at 0x7f1a7159b420>'''
___as_tensor = '''<function _as_tensor_fullprec at 0x7f1a73297880>'''
inspect = '''<module 'inspect' from '/root/.pyenv/versions/3.11.7/lib/python3.11/inspect.py'>'''
def __guard_0_for_torch_dynamo_resume_in_scale_at_10(L, G, **___kwargs_ignored):
    __guard_hit = True
    __guard_hit = __guard_hit and torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None  # _dynamo/output_graph.py:1135 in init_ambient_guards
    __guard_hit = __guard_hit and ___check_global_state() against {"allow_bf16_reduce":0,"allow_fp16_reduce":0,"allow_tf32":false,"autocast_state":{"cached_enabled":true,"dtype":[15,5,5,15,5,5,15,15,5,5],"enabled":[false,false,false,false,false,false,false,false,false,false]},"default_dtype":6,"deterministic_algorithms":false,"deterministic_algorithms_warn_only":false,"grad_mode":true,"num_threads":2,"torch_function":true,"torch_function_all_disabled":false}
    __guard_hit = __guard_hit and ___check_torch_function_mode_stack()
    __guard_hit = __guard_hit and utils_device.CURRENT_DEVICE == None                           # _dynamo/output_graph.py:1122 in init_ambient_guards
    __guard_hit = __guard_hit and check_tensor(L['y'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[3], stride=[1])  # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_dynamic_indices') == False           # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_weak_dynamic_indices') == False      # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_unbacked_indices') == False          # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_strict_unbacked_indices') == False   # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_static_indices') == False            # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    return __guard_hit

# Note: please refer to the graph code in __compiled_fn_13_70f67b80_dc0b_43af_9231_59e1de0243c4*.py.
# Captured Graph: Dynamo generated graph (debuggable when using eager backend).
# Joint graph: joint forward+backward graph from aot autograd.
# Forward graph: forward graph from aot autograd (debuggable when using aot_eager backend).
# Backward graph: backward graph from aot autograd (debuggable when using aot_eager backend).
# AFTER XXX: graph processed by inductor (not debuggable).
def __compiled_fn_13_70f67b80_dc0b_43af_9231_59e1de0243c4(*args, **kwargs):
    pass

def __transformed_code_0_for_torch_dynamo_resume_in_scale_at_10(__nested_resume_fns, __nested_frame_values, ___stack0, y):
    __is_tracing_resume_prologue = None; x = None # this line helps Python to generate bytecode with at least the same number of local variables as the original function
    tmp_1 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter
    tmp_2 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter()
    tmp_3 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit
    __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit(tmp_2)
    graph_out_0 = __compiled_fn_13_70f67b80_dc0b_43af_9231_59e1de0243c4(y)
    []
    []
    __temp_71 = []
    __temp_71.extend([])
    [__temp_71]
    return graph_out_0[0]


# Note: if there is a transformed version below, this function might well not be executed directly. Please check the transformed version if possible.
def __resume_at_78_11(__nested_resume_fns, __nested_frame_values, ___stack0, y):
    __is_tracing_resume_prologue = True
    __is_tracing_resume_prologue = False
    return y + 1

def transformed___resume_at_78_11(__nested_resume_fns, __nested_frame_values, ___stack0, y):
    __local_dict = {"__nested_resume_fns": __nested_resume_fns, "__nested_frame_values": __nested_frame_values, "___stack0": ___stack0, "y": y}
    __global_dict = globals()
    if __guard_1_for_torch_dynamo_resume_in_scale_at_10(__local_dict, __global_dict):
        return __transformed_code_1_for_torch_dynamo_resume_in_scale_at_10(__nested_resume_fns, __nested_frame_values, ___stack0, y)
    if __guard_0_for_torch_dynamo_resume_in_scale_at_10(__local_dict, __global_dict):
        return __transformed_code_0_for_torch_dynamo_resume_in_scale_at_10(__nested_resume_fns, __nested_frame_values, ___stack0, y)
    # Note: this function might well not be executed directly. It might well be transformed again, i.e. adding one more guards and transformed code.
    return __resume_at_78_11(__nested_resume_fns, __nested_frame_values, ___stack0, y)

#============ end of __resume_at_78_11 ============#

# Note: the following variables are used inside the guard function.
___check_tensors = '''None'''
___check_tensors_verbose = '''None'''
___check_global_state = '''<built-in method check of torch._C._dynamo.guards.GlobalStateGuard object at 0x7f1a70ee63f0>'''
___check_torch_function_mode_stack = '''<function make_torch_function_mode_stack_guard.<locals>.check_torch_function_mode_stack at 0x7f1a6e8b5a80>'''
IsNonOverlappingAndDenseIndicator = '''<function _eval_is_non_overlapping_and_dense_flat at 0x7f1a71bfb560>'''
cast_symbool_to_symint_guardless = '''<function cast_symbool_to_symint_guardless at 0x7f1a71bfb4c0>'''
math = '''<module 'math' from '/root/.pyenv/versions/3.11.7/lib/python3.11/lib-dynload/math.cpython-311-x86_64-linux-gnu.so'>'''
torch = '''<module 'torch' from '/work/main/.venv/lib/python3.11/site-packages/torch/__init__.py'>'''
___check_type_id = '''<built-in function check_type_id>'''
___check_obj_id = '''<built-in function check_obj_id>'''
___odict_getitem = '''<method '__getitem__' of 'dict' objects>'''
___key_to_id = '''<function key_to_id at 0x7f1a71974ea0>'''
___dict_version = '''<built-in function dict_version>'''
___dict_contains = '''<function _get_closure_vars.<locals>.<lambda> at 0x7f1a6f36ccc0>'''
___tuple_iterator_len = '''<method '__length_hint__' of 'tuple_iterator' objects>'''
___normalize_count_iter = '''<function normalize_count_iter at 0x7f1a71974720>'''
___normalize_range_iter = '''<function normalize_range_iter at 0x7f1a719747c0>'''
___tuple_iterator_getitem = '''<function tuple_iterator_getitem at 0x7f1a719745e0>'''
___dataclass_fields = '''<function dataclass_fields at 0x7f1a71974680>'''
___namedtuple_fields = '''<function _get_closure_vars.<locals>.<lambda> at 0x7f1a6f36cea0>'''
___get_torch_function_mode_stack_at = '''<function get_torch_function_mode_stack_at at 0x7f1a7196d440>'''
___get_current_stream = '''<function get_current_stream at 0x7f1a7196d620>'''
__math_isnan = '''<built-in function isnan>'''
__numpy_isnan = '''<ufunc 'isnan'>'''
inf = '''inf'''
__load_module = '''<function import_module at 0x7f1a9489d260>'''
utils_device = '''<module 'torch.utils._device' from '/work/main/.venv/lib/python3.11/site-packages/torch/utils/_device.py'>'''
device = '''<class 'torch.device'>'''
___from_numpy = '''<function from_numpy at 0x7f1a7159b420>'''
___as_tensor = '''<function _as_tensor_fullprec at 0x7f1a73297880>'''
inspect = '''<module 'inspect' from '/root/.pyenv/versions/3.11.7/lib/python3.11/inspect.py'>'''
def __guard_1_for_torch_dynamo_resume_in_scale_at_10(L, G, **___kwargs_ignored):
    __guard_hit = True
    __guard_hit = __guard_hit and torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None  # _dynamo/output_graph.py:1135 in init_ambient_guards
    __guard_hit = __guard_hit and ___check_global_state() against {"allow_bf16_reduce":0,"allow_fp16_reduce":0,"allow_tf32":false,"autocast_state":{"cached_enabled":true,"dtype":[15,5,5,15,5,5,15,15,5,5],"enabled":[false,false,false,false,false,false,false,false,false,false]},"default_dtype":6,"deterministic_algorithms":false,"deterministic_algorithms_warn_only":false,"grad_mode":true,"num_threads":2,"torch_function":true,"torch_function_all_disabled":false}
    __guard_hit = __guard_hit and ___check_torch_function_mode_stack()
    __guard_hit = __guard_hit and utils_device.CURRENT_DEVICE == None                           # _dynamo/output_graph.py:1122 in init_ambient_guards
    __guard_hit = __guard_hit and check_tensor(L['y'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float64, device=None, requires_grad=False, size=[3], stride=[1])  # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_dynamic_indices') == False           # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_weak_dynamic_indices') == False      # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_unbacked_indices') == False          # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_strict_unbacked_indices') == False   # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_static_indices') == False            # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    return __guard_hit

# Note: please refer to the graph code in __compiled_fn_19_e98e5720_306b_4eea_ad12_315a21eb34f4*.py.
# Captured Graph: Dynamo generated graph (debuggable when using eager backend).
# Joint graph: joint forward+backward graph from aot autograd.
# Forward graph: forward graph from aot autograd (debuggable when using aot_eager backend).
# Backward graph: backward graph from aot autograd (debuggable when using aot_eager backend).
# AFTER XXX: graph processed by inductor (not debuggable).
def __compiled_fn_19_e98e5720_306b_4eea_ad12_315a21eb34f4(*args, **kwargs):
    pass

def __transformed_code_1_for_torch_dynamo_resume_in_scale_at_10(__nested_resume_fns, __nested_frame_values, ___stack0, y):
    __is_tracing_resume_prologue = None; x = None # this line helps Python to generate bytecode with at least the same number of local variables as the original function
    tmp_1 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter
    tmp_2 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter()
    tmp_3 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit
    __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit(tmp_2)
    graph_out_0 = __compiled_fn_19_e98e5720_306b_4eea_ad12_315a21eb34f4(y)
    []
    []
    __temp_97 = []
    __temp_97.extend([])
    [__temp_97]
    return graph_out_0[0]


# Note: the following variables are used inside the guard function.
___check_tensors = '''None'''
___check_tensors_verbose = '''None'''
___check_global_state = '''<built-in method check of torch._C._dynamo.guards.GlobalStateGuard object at 0x7f1a6e8db9f0>'''
___check_torch_function_mode_stack = '''<function make_torch_function_mode_stack_guard.<locals>.check_torch_function_mode_stack at 0x7f1a6f220f40>'''
IsNonOverlappingAndDenseIndicator = '''<function _eval_is_non_overlapping_and_dense_flat at 0x7f1a71bfb560>'''
cast_symbool_to_symint_guardless = '''<function cast_symbool_to_symint_guardless at 0x7f1a71bfb4c0>'''
math = '''<module 'math' from '/root/.pyenv/versions/3.11.7/lib/python3.11/lib-dynload/math.cpython-311-x86_64-linux-gnu.so'>'''
torch = '''<module 'torch' from '/work/main/.venv/lib/python3.11/site-packages/torch/__init__.py'>'''
___check_type_id = '''<built-in function check_type_id>'''
___check_obj_id = '''<built-in function check_obj_id>'''
___odict_getitem = '''<method '__getitem__' of 'dict' objects>'''
___key_to_id = '''<function key_to_id at 0x7f1a71974ea0>'''
___dict_version = '''<built-in function dict_version>'''
___dict_contains = '''<function _get_closure_vars.<locals>.<lambda> at 0x7f1a6f36ccc0>'''
___tuple_iterator_len = '''<method '__length_hint__' of 'tuple_iterator' objects>'''
___normalize_count_iter = '''<function normalize_count_iter at 0x7f1a71974720>'''
___normalize_range_iter = '''<function normalize_range_iter at 0x7f1a719747c0>'''
___tuple_iterator_getitem = '''<function tuple_iterator_getitem at 0x7f1a719745e0>'''
___dataclass_fields = '''<function dataclass_fields at 0x7f1a71974680>'''
___namedtuple_fields = '''<function _get_closure_vars.<locals>.<lambda> at 0x7f1a6f36cea0>'''
___get_torch_function_mode_stack_at = '''<function get_torch_function_mode_stack_at at 0x7f1a7196d440>'''
___get_current_stream = '''<function get_current_stream at 0x7f1a7196d620>'''
__math_isnan = '''<built-in function isnan>'''
__numpy_isnan = '''<ufunc 'isnan'>'''
inf = '''inf'''
__load_module = '''<function import_module at 0x7f1a9489d260>'''
utils_device = '''<module 'torch.utils._device' from '/work/main/.venv/lib/python3.11/site-packages/torch/utils/_device.py'>'''
device = '''<class 'torch.device'>'''
___from_numpy = '''<function from_numpy at 0x7f1a7159b420>'''
___as_tensor = '''<function _as_tensor_fullprec at 0x7f1a73297880>'''
inspect = '''<module 'inspect' from '/root/.pyenv/versions/3.11.7/lib/python3.11/inspect.py'>'''
def __guard_0_for_torch_dynamo_resume_in_scale_at_10(L, G, **___kwargs_ignored):
    __guard_hit = True
    __guard_hit = __guard_hit and torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None  # _dynamo/output_graph.py:1135 in init_ambient_guards
    __guard_hit = __guard_hit and ___check_global_state() against {"allow_bf16_reduce":0,"allow_fp16_reduce":0,"allow_tf32":false,"autocast_state":{"cached_enabled":true,"dtype":[15,5,5,15,5,5,15,15,5,5],"enabled":[false,false,false,false,false,false,false,false,false,false]},"default_dtype":6,"deterministic_algorithms":false,"deterministic_algorithms_warn_only":false,"grad_mode":true,"num_threads":2,"torch_function":true,"torch_function_all_disabled":false}
    __guard_hit = __guard_hit and ___check_torch_function_mode_stack()
    __guard_hit = __guard_hit and utils_device.CURRENT_DEVICE == None                           # _dynamo/output_graph.py:1122 in init_ambient_guards
    __guard_hit = __guard_hit and check_tensor(L['y'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[3], stride=[1])  # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_dynamic_indices') == False           # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_weak_dynamic_indices') == False      # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_unbacked_indices') == False          # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_strict_unbacked_indices') == False   # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    __guard_hit = __guard_hit and hasattr(L['y'], '_dynamo_static_indices') == False            # return y + 1  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10
    return __guard_hit

# Note: please refer to the graph code in __compiled_fn_13_70f67b80_dc0b_43af_9231_59e1de0243c4*.py.
# Captured Graph: Dynamo generated graph (debuggable when using eager backend).
# Joint graph: joint forward+backward graph from aot autograd.
# Forward graph: forward graph from aot autograd (debuggable when using aot_eager backend).
# Backward graph: backward graph from aot autograd (debuggable when using aot_eager backend).
# AFTER XXX: graph processed by inductor (not debuggable).
def __compiled_fn_13_70f67b80_dc0b_43af_9231_59e1de0243c4(*args, **kwargs):
    pass

def __transformed_code_0_for_torch_dynamo_resume_in_scale_at_10(__nested_resume_fns, __nested_frame_values, ___stack0, y):
    __is_tracing_resume_prologue = None; x = None # this line helps Python to generate bytecode with at least the same number of local variables as the original function
    tmp_1 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter
    tmp_2 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter()
    tmp_3 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit
    __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit(tmp_2)
    graph_out_0 = __compiled_fn_13_70f67b80_dc0b_43af_9231_59e1de0243c4(y)
    []
    []
    __temp_71 = []
    __temp_71.extend([])
    [__temp_71]
    return graph_out_0[0]


# Note: if there is a transformed version below, this function might well not be executed directly. Please check the transformed version if possible.
def __resume_at_78_17(__nested_resume_fns, __nested_frame_values, ___stack0, y):
    __is_tracing_resume_prologue = True
    __is_tracing_resume_prologue = False
    return y + 1

def transformed___resume_at_78_17(__nested_resume_fns, __nested_frame_values, ___stack0, y):
    __local_dict = {"__nested_resume_fns": __nested_resume_fns, "__nested_frame_values": __nested_frame_values, "___stack0": ___stack0, "y": y}
    __global_dict = globals()
    if __guard_1_for_torch_dynamo_resume_in_scale_at_10(__local_dict, __global_dict):
        return __transformed_code_1_for_torch_dynamo_resume_in_scale_at_10(__nested_resume_fns, __nested_frame_values, ___stack0, y)
    if __guard_0_for_torch_dynamo_resume_in_scale_at_10(__local_dict, __global_dict):
        return __transformed_code_0_for_torch_dynamo_resume_in_scale_at_10(__nested_resume_fns, __nested_frame_values, ___stack0, y)
    # Note: this function might well not be executed directly. It might well be transformed again, i.e. adding one more guards and transformed code.
    return __resume_at_78_17(__nested_resume_fns, __nested_frame_values, ___stack0, y)

#============ end of __resume_at_78_17 ============#

# Note: the following variables are used inside the guard function.
___check_tensors = '''None'''
___check_tensors_verbose = '''None'''
___check_global_state = '''<built-in method check of torch._C._dynamo.guards.GlobalStateGuard object at 0x7f1a70f25730>'''
___check_torch_function_mode_stack = '''<function make_torch_function_mode_stack_guard.<locals>.check_torch_function_mode_stack at 0x7f1a6f221e40>'''
IsNonOverlappingAndDenseIndicator = '''<function _eval_is_non_overlapping_and_dense_flat at 0x7f1a71bfb560>'''
cast_symbool_to_symint_guardless = '''<function cast_symbool_to_symint_guardless at 0x7f1a71bfb4c0>'''
math = '''<module 'math' from '/root/.pyenv/versions/3.11.7/lib/python3.11/lib-dynload/math.cpython-311-x86_64-linux-gnu.so'>'''
torch = '''<module 'torch' from '/work/main/.venv/lib/python3.11/site-packages/torch/__init__.py'>'''
___check_type_id = '''<built-in function check_type_id>'''
___check_obj_id = '''<built-in function check_obj_id>'''
___odict_getitem = '''<method '__getitem__' of 'dict' objects>'''
___key_to_id = '''<function key_to_id at 0x7f1a71974ea0>'''
___dict_version = '''<built-in function dict_version>'''
___dict_contains = '''<function _get_closure_vars.<locals>.<lambda> at 0x7f1a6f36ccc0>'''
___tuple_iterator_len = '''<method '__length_hint__' of 'tuple_iterator' objects>'''
___normalize_count_iter = '''<function normalize_count_iter at 0x7f1a71974720>'''
___normalize_range_iter = '''<function normalize_range_iter at 0x7f1a719747c0>'''
___tuple_iterator_getitem = '''<function tuple_iterator_getitem at 0x7f1a719745e0>'''
___dataclass_fields = '''<function dataclass_fields at 0x7f1a71974680>'''
___namedtuple_fields = '''<function _get_closure_vars.<locals>.<lambda> at 0x7f1a6f36cea0>'''
___get_torch_function_mode_stack_at = '''<function get_torch_function_mode_stack_at at 0x7f1a7196d440>'''
___get_current_stream = '''<function get_current_stream at 0x7f1a7196d620>'''
__math_isnan = '''<built-in function isnan>'''
__numpy_isnan = '''<ufunc 'isnan'>'''
inf = '''inf'''
__load_module = '''<function import_module at 0x7f1a9489d260>'''
utils_device = '''<module 'torch.utils._device' from '/work/main/.venv/lib/python3.11/site-packages/torch/utils/_device.py'>'''
device = '''<class 'torch.device'>'''
___from_numpy = '''<function from_numpy at 0x7f1a7159b420>'''
___as_tensor = '''<function _as_tensor_fullprec at 0x7f1a73297880>'''
inspect = '''<module 'inspect' from '/root/.pyenv/versions/3.11.7/lib/python3.11/inspect.py'>'''
def __guard_1_for_scale(L, G, **___kwargs_ignored):
    __guard_hit = True
    __guard_hit = __guard_hit and torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None  # _dynamo/output_graph.py:1135 in init_ambient_guards
    __guard_hit = __guard_hit and ___check_global_state() against {"allow_bf16_reduce":0,"allow_fp16_reduce":0,"allow_tf32":false,"autocast_state":{"cached_enabled":true,"dtype":[15,5,5,15,5,5,15,15,5,5],"enabled":[false,false,false,false,false,false,false,false,false,false]},"default_dtype":6,"deterministic_algorithms":false,"deterministic_algorithms_warn_only":false,"grad_mode":true,"num_threads":2,"torch_function":true,"torch_function_all_disabled":false}
    __guard_hit = __guard_hit and ___check_torch_function_mode_stack()
    __guard_hit = __guard_hit and utils_device.CURRENT_DEVICE == None                           # _dynamo/output_graph.py:1122 in init_ambient_guards
    __guard_hit = __guard_hit and check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float64, device=None, requires_grad=False, size=[3], stride=[1])  # y = x * 2  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:9 in scale
    __guard_hit = __guard_hit and hasattr(L['x'], '_dynamo_dynamic_indices') == False           # y = x * 2  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:9 in scale
    __guard_hit = __guard_hit and hasattr(L['x'], '_dynamo_weak_dynamic_indices') == False      # y = x * 2  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:9 in scale
    __guard_hit = __guard_hit and hasattr(L['x'], '_dynamo_unbacked_indices') == False          # y = x * 2  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:9 in scale
    __guard_hit = __guard_hit and hasattr(L['x'], '_dynamo_strict_unbacked_indices') == False   # y = x * 2  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:9 in scale
    __guard_hit = __guard_hit and hasattr(L['x'], '_dynamo_static_indices') == False            # y = x * 2  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:9 in scale
    __guard_hit = __guard_hit and ___check_obj_id(G['__builtins_dict___15']['print'], 139752139855472), type=<class 'builtin_function_or_method'>  # print("scaled", tuple(y.shape))  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:10 in scale
    __guard_hit = __guard_hit and ___check_obj_id(G['__builtins_dict___15']['tuple'], 139752148165504), type=<class 'tuple'>  # print("scaled", tuple(y.shape))  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:10 in scale
    return __guard_hit

# Note: please refer to the graph code in __compiled_fn_16_a0b303e8_c327_440c_b81c_2e27e5b093fa*.py.
# Captured Graph: Dynamo generated graph (debuggable when using eager backend).
# Joint graph: joint forward+backward graph from aot autograd.
# Forward graph: forward graph from aot autograd (debuggable when using aot_eager backend).
# Backward graph: backward graph from aot autograd (debuggable when using aot_eager backend).
# AFTER XXX: graph processed by inductor (not debuggable).
def __compiled_fn_16_a0b303e8_c327_440c_b81c_2e27e5b093fa(*args, **kwargs):
    pass

def __transformed_code_1_for_scale(x):
    y = None # this line helps Python to generate bytecode with at least the same number of local variables as the original function
    tmp_1 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter
    tmp_2 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter()
    tmp_3 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit
    __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit(tmp_2)
    graph_out_0 = __compiled_fn_16_a0b303e8_c327_440c_b81c_2e27e5b093fa(x)
    __temp_79 = [graph_out_0[0]][slice(0, 1)]
    __temp_79.extend([])
    __temp_80 = [__temp_79]
    __temp_80[0][slice(0, 0)] = [__builtins_dict___15['print']('scaled', (3,))]
    __temp_83 = [__temp_80[0]]
    [[()][0]]
    __temp_83[0][slice(1, None)] = [__temp_83[0][1]]
    __temp_88 = [[], __temp_83]
    __temp_88.extend(__temp_83[-1])
    return __resume_at_78_17(*__temp_88)


# Note: the following variables are used inside the guard function.
___check_tensors = '''None'''
___check_tensors_verbose = '''None'''
___check_global_state = '''<built-in method check of torch._C._dynamo.guards.GlobalStateGuard object at 0x7f1a6f230870>'''
___check_torch_function_mode_stack = '''<function make_torch_function_mode_stack_guard.<locals>.check_torch_function_mode_stack at 0x7f1a6f21f240>'''
IsNonOverlappingAndDenseIndicator = '''<function _eval_is_non_overlapping_and_dense_flat at 0x7f1a71bfb560>'''
cast_symbool_to_symint_guardless = '''<function cast_symbool_to_symint_guardless at 0x7f1a71bfb4c0>'''
math = '''<module 'math' from '/root/.pyenv/versions/3.11.7/lib/python3.11/lib-dynload/math.cpython-311-x86_64-linux-gnu.so'>'''
torch = '''<module 'torch' from '/work/main/.venv/lib/python3.11/site-packages/torch/__init__.py'>'''
___check_type_id = '''<built-in function check_type_id>'''
___check_obj_id = '''<built-in function check_obj_id>'''
___odict_getitem = '''<method '__getitem__' of 'dict' objects>'''
___key_to_id = '''<function key_to_id at 0x7f1a71974ea0>'''
___dict_version = '''<built-in function dict_version>'''
___dict_contains = '''<function _get_closure_vars.<locals>.<lambda> at 0x7f1a6f36ccc0>'''
___tuple_iterator_len = '''<method '__length_hint__' of 'tuple_iterator' objects>'''
___normalize_count_iter = '''<function normalize_count_iter at 0x7f1a71974720>'''
___normalize_range_iter = '''<function normalize_range_iter at 0x7f1a719747c0>'''
___tuple_iterator_getitem = '''<function tuple_iterator_getitem at 0x7f1a719745e0>'''
___dataclass_fields = '''<function dataclass_fields at 0x7f1a71974680>'''
___namedtuple_fields = '''<function _get_closure_vars.<locals>.<lambda> at 0x7f1a6f36cea0>'''
___get_torch_function_mode_stack_at = '''<function get_torch_function_mode_stack_at at 0x7f1a7196d440>'''
___get_current_stream = '''<function get_current_stream at 0x7f1a7196d620>'''
__math_isnan = '''<built-in function isnan>'''
__numpy_isnan = '''<ufunc 'isnan'>'''
inf = '''inf'''
__load_module = '''<function import_module at 0x7f1a9489d260>'''
utils_device = '''<module 'torch.utils._device' from '/work/main/.venv/lib/python3.11/site-packages/torch/utils/_device.py'>'''
device = '''<class 'torch.device'>'''
___from_numpy = '''<function from_numpy at 0x7f1a7159b420>'''
___as_tensor = '''<function _as_tensor_fullprec at 0x7f1a73297880>'''
inspect = '''<module 'inspect' from '/root/.pyenv/versions/3.11.7/lib/python3.11/inspect.py'>'''
def __guard_0_for_scale(L, G, **___kwargs_ignored):
    __guard_hit = True
    __guard_hit = __guard_hit and torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None  # _dynamo/output_graph.py:1135 in init_ambient_guards
    __guard_hit = __guard_hit and ___check_global_state() against {"allow_bf16_reduce":0,"allow_fp16_reduce":0,"allow_tf32":false,"autocast_state":{"cached_enabled":true,"dtype":[15,5,5,15,5,5,15,15,5,5],"enabled":[false,false,false,false,false,false,false,false,false,false]},"default_dtype":6,"deterministic_algorithms":false,"deterministic_algorithms_warn_only":false,"grad_mode":true,"num_threads":2,"torch_function":true,"torch_function_all_disabled":false}
    __guard_hit = __guard_hit and ___check_torch_function_mode_stack()
    __guard_hit = __guard_hit and utils_device.CURRENT_DEVICE == None                           # _dynamo/output_graph.py:1122 in init_ambient_guards
    __guard_hit = __guard_hit and check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[3], stride=[1])  # y = x * 2  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:9 in scale
    __guard_hit = __guard_hit and hasattr(L['x'], '_dynamo_dynamic_indices') == False           # y = x * 2  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:9 in scale
    __guard_hit = __guard_hit and hasattr(L['x'], '_dynamo_weak_dynamic_indices') == False      # y = x * 2  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:9 in scale
    __guard_hit = __guard_hit and hasattr(L['x'], '_dynamo_unbacked_indices') == False          # y = x * 2  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:9 in scale
    __guard_hit = __guard_hit and hasattr(L['x'], '_dynamo_strict_unbacked_indices') == False   # y = x * 2  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:9 in scale
    __guard_hit = __guard_hit and hasattr(L['x'], '_dynamo_static_indices') == False            # y = x * 2  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:9 in scale
    __guard_hit = __guard_hit and ___check_obj_id(G['__builtins_dict___9']['print'], 139752139855472), type=<class 'builtin_function_or_method'>  # print("scaled", tuple(y.shape))  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:10 in scale
    __guard_hit = __guard_hit and ___check_obj_id(G['__builtins_dict___9']['tuple'], 139752148165504), type=<class 'tuple'>  # print("scaled", tuple(y.shape))  # tests/data/depyf_dumps/scripts/graph_break_dtype.py:10 in scale
    return __guard_hit

# Note: please refer to the graph code in __compiled_fn_10_af9f2a67_bf78_4989_8e1e_26a1f0c80a61*.py.
# Captured Graph: Dynamo generated graph (debuggable when using eager backend).
# Joint graph: joint forward+backward graph from aot autograd.
# Forward graph: forward graph from aot autograd (debuggable when using aot_eager backend).
# Backward graph: backward graph from aot autograd (debuggable when using aot_eager backend).
# AFTER XXX: graph processed by inductor (not debuggable).
def __compiled_fn_10_af9f2a67_bf78_4989_8e1e_26a1f0c80a61(*args, **kwargs):
    pass

def __transformed_code_0_for_scale(x):
    y = None # this line helps Python to generate bytecode with at least the same number of local variables as the original function
    tmp_1 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter
    tmp_2 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter()
    tmp_3 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit
    __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit(tmp_2)
    graph_out_0 = __compiled_fn_10_af9f2a67_bf78_4989_8e1e_26a1f0c80a61(x)
    __temp_53 = [graph_out_0[0]][slice(0, 1)]
    __temp_53.extend([])
    __temp_54 = [__temp_53]
    __temp_54[0][slice(0, 0)] = [__builtins_dict___9['print']('scaled', (3,))]
    __temp_57 = [__temp_54[0]]
    [[()][0]]
    __temp_57[0][slice(1, None)] = [__temp_57[0][1]]
    __temp_62 = [[], __temp_57]
    __temp_62.extend(__temp_57[-1])
    return __resume_at_78_11(*__temp_62)


# Note: if there is a transformed version below, this function might well not be executed directly. Please check the transformed version if possible.
def scale(x):
    y = x * 2
    print('scaled', tuple(y.shape))
    return y + 1

def transformed_scale(x):
    __local_dict = {"x": x}
    __global_dict = globals()
    if __guard_1_for_scale(__local_dict, __global_dict):
        return __transformed_code_1_for_scale(x)
    if __guard_0_for_scale(__local_dict, __global_dict):
        return __transformed_code_0_for_scale(x)
    # Note: this function might well not be executed directly. It might well be transformed again, i.e. adding one more guards and transformed code.
    return scale(x)

#============ end of scale ============#
