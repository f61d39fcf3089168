
# Note: the following variables are used inside the guard function.
___check_tensors = '''None'''
___check_tensors_verbose = '''None'''
___check_global_state = '''<built-in method check of torch._C._dynamo.guards.GlobalStateGuard object at 0x7f1a6f372430>'''
___check_torch_function_mode_stack = '''<function make_torch_function_mode_stack_guard.<locals>.check_torch_function_mode_stack at 0x7f1a6f21f2e0>'''
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
def __guard_3_for_forward(L, G, **___kwargs_ignored):
    __guard_hit = True
    __guard_hit = __guard_hit and torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None  # _dynamo/output_graph.py:1135 in init_ambient_guards
    __guard_hit = __guard_hit and ___check_global_state() against {"allow_bf16_reduce":0,"allow_fp16_reduce":0,"allow_tf32":false,"autocast_state":{"cached_enabled":true,"dtype":[15,5,5,15,5,5,15,15,5,5],"enabled":[false,false,false,false,false,false,false,false,false,false]},"default_dtype":6,"deterministic_algorithms":false,"deterministic_algorithms_warn_only":false,"grad_mode":false,"num_threads":2,"torch_function":true,"torch_function_all_disabled":false}
    __guard_hit = __guard_hit and ___check_torch_function_mode_stack()
    __guard_hit = __guard_hit and utils_device.CURRENT_DEVICE == None                           # _dynamo/output_graph.py:1122 in init_ambient_guards
    __guard_hit = __guard_hit and check_tensor(L['obs'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[64, 8], stride=[8, 1])  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_dynamic_indices') == False         # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_weak_dynamic_indices') == False    # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_unbacked_indices') == False        # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_strict_unbacked_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_static_indices') == False          # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and check_no_aliasing(L['obs'], L['self'].__dict__['_buffers']['var'], L['self'].__dict__['_buffers']['mean'])
    __guard_hit = __guard_hit and ___check_obj_id(G['__builtins_dict___6']['super'], 139752148166336), type=<class 'super'>  # super().__setattr__(name, value)  # nn/modules/module.py:2074 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__builtins_dict___6']['isinstance'], 139752139854432), type=<class 'builtin_function_or_method'>  # if isinstance(value, Parameter):  # nn/modules/module.py:1981 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'], 139751617460832), type=<class 'module'>  # if isinstance(value, Parameter):  # nn/modules/module.py:1981 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'].Buffer, 94445870484512), type=<class 'torch.nn.parameter.Buffer'>  # if isinstance(value, Buffer) or buffers is not None and name in buffers:  # nn/modules/module.py:2031 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'].Module, 94445872816352), type=<class 'torch.nn.modules.module.Module'>  # if isinstance(value, Module):  # nn/modules/module.py:2002 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'].Parameter, 94445870592512), type=<class 'torch.nn.parameter.Parameter'>  # if isinstance(value, Parameter):  # nn/modules/module.py:1981 in __setattr__
    __guard_hit = __guard_hit and ___check_type_id(L['self'], 94445917633904), type=<class '__main__.RunningNormalizer'>  # if self.training:  # sample_models/module_counter.py:16 in forward (HINT: type RunningNormalizer)
    __guard_hit = __guard_hit and not ___dict_contains('__setattr__', L['self'].__dict__)       # self.count += 1  # sample_models/module_counter.py:17 in forward
    __guard_hit = __guard_hit and L['self'].count == 3                                          # self.count += 1  # sample_models/module_counter.py:17 in forward (HINT: torch.compile considers integer attributes of the nn.Module to be static. If you are observing recompilation, you might want to make this integer dynamic using torch._dynamo.config.allow_unspec_int_on_nn_module = True, or convert this integer into a tensor.)
    __guard_hit = __guard_hit and L['self'].training == True                                    # if self.training:  # sample_models/module_counter.py:16 in forward
    __guard_hit = __guard_hit and ___check_type_id(L['self'].__dict__['_buffers'], 139752148143776), type=<class 'dict'>  # buffers = self.__dict__.get("_buffers")  # nn/modules/module.py:2030 in __setattr__ (HINT: type dict)
    __guard_hit = __guard_hit and not ___dict_contains('count', L['self'].__dict__['_buffers'])  # if isinstance(value, Buffer) or buffers is not None and name in buffers:  # nn/modules/module.py:2031 in __setattr__
    __guard_hit = __guard_hit and check_tensor(L['self'].__dict__['_buffers']['var'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[8], stride=[1])  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_dynamic_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_weak_dynamic_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_unbacked_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_strict_unbacked_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_static_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and check_tensor(L['self'].__dict__['_buffers']['mean'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[8], stride=[1])  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_dynamic_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_weak_dynamic_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_unbacked_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_strict_unbacked_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_static_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and ___check_type_id(L['self'].__dict__['_modules'], 139752148143776), type=<class 'dict'>  # modules = self.__dict__.get("_modules")  # nn/modules/module.py:2001 in __setattr__ (HINT: type dict)
    __guard_hit = __guard_hit and not ___dict_contains('count', L['self'].__dict__['_modules'])  # elif modules is not None and name in modules:  # nn/modules/module.py:2018 in __setattr__
    __guard_hit = __guard_hit and ___check_type_id(L['self'].__dict__['_parameters'], 139752148143776), type=<class 'dict'>  # params = self.__dict__.get("_parameters")  # nn/modules/module.py:1980 in __setattr__ (HINT: type dict)
    __guard_hit = __guard_hit and not ___dict_contains('count', L['self'].__dict__['_parameters'])  # elif params is not None and name in params:  # nn/modules/module.py:1993 in __setattr__
    __guard_hit = __guard_hit and L['self'].__dict__['_buffers'] is L['self']._buffers          # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and L['self'].__dict__['_modules'] is L['self']._modules          # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and L['self'].__dict__['_parameters'] is L['self']._parameters    # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    return __guard_hit

# Note: please refer to the graph code in __compiled_fn_7_b280598e_0fc3_4c65_8f64_26bb04f5154b*.py.
# Captured Graph: Dynamo generated graph (debuggable when using eager backend).
# Joint graph: joint forward+backward graph from aot autograd.
# Forward graph: forward graph from aot autograd (debuggable when using aot_eager backend).
# Backward graph: backward graph from aot autograd (debuggable when using aot_eager backend).
# AFTER XXX: graph processed by inductor (not debuggable).
def __compiled_fn_7_b280598e_0fc3_4c65_8f64_26bb04f5154b(*args, **kwargs):
    pass

def __transformed_code_3_for_forward(self, obs):
    momentum = None # this line helps Python to generate bytecode with at least the same number of local variables as the original function
    tmp_3 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter
    tmp_4 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter()
    tmp_5 = self.__dict__['_buffers']
    tmp_6 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit
    __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit(tmp_4)
    graph_out_0 = __compiled_fn_7_b280598e_0fc3_4c65_8f64_26bb04f5154b(self.
        __dict__['_buffers']['mean'], obs, tmp_5['var'])
    []
    tmp_2 = __import_torch_dot__dynamo_dot_utils.object_setattr_ignore_descriptor
    __import_torch_dot__dynamo_dot_utils.object_setattr_ignore_descriptor(self,
        'count', 4)
    []
    __temp_39 = []
    __temp_39.extend([])
    [__temp_39]
    return graph_out_0[0]


# Note: the following variables are used inside the guard function.
___check_tensors = '''None'''
___check_tensors_verbose = '''None'''
___check_global_state = '''<built-in method check of torch._C._dynamo.guards.GlobalStateGuard object at 0x7f1a7089a0f0>'''
___check_torch_function_mode_stack = '''<function make_torch_function_mode_stack_guard.<locals>.check_torch_function_mode_stack at 0x7f1a6f21c5e0>'''
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
def __guard_2_for_forward(L, G, **___kwargs_ignored):
    __guard_hit = True
    __guard_hit = __guard_hit and torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None  # _dynamo/output_graph.py:1135 in init_ambient_guards
    __guard_hit = __guard_hit and ___check_global_state() against {"allow_bf16_reduce":0,"allow_fp16_reduce":0,"allow_tf32":false,"autocast_state":{"cached_enabled":true,"dtype":[15,5,5,15,5,5,15,15,5,5],"enabled":[false,false,false,false,false,false,false,false,false,false]},"default_dtype":6,"deterministic_algorithms":false,"deterministic_algorithms_warn_only":false,"grad_mode":false,"num_threads":2,"torch_function":true,"torch_function_all_disabled":false}
    __guard_hit = __guard_hit and ___check_torch_function_mode_stack()
    __guard_hit = __guard_hit and utils_device.CURRENT_DEVICE == None                           # _dynamo/output_graph.py:1122 in init_ambient_guards
    __guard_hit = __guard_hit and ___check_type_id(L['self'], 94445917633904), type=<class '__main__.RunningNormalizer'>  # if self.training:  # sample_models/module_counter.py:16 in forward (HINT: type RunningNormalizer)
    __guard_hit = __guard_hit and not ___dict_contains('__setattr__', L['self'].__dict__)       # self.count += 1  # sample_models/module_counter.py:17 in forward
    __guard_hit = __guard_hit and L['self'].count == 2                                          # self.count += 1  # sample_models/module_counter.py:17 in forward (HINT: torch.compile considers integer attributes of the nn.Module to be static. If you are observing recompilation, you might want to make this integer dynamic using torch._dynamo.config.allow_unspec_int_on_nn_module = True, or convert this integer into a tensor.)
    __guard_hit = __guard_hit and L['self'].training == True                                    # if self.training:  # sample_models/module_counter.py:16 in forward
    __guard_hit = __guard_hit and ___check_type_id(L['self'].__dict__['_buffers'], 139752148143776), type=<class 'dict'>  # buffers = self.__dict__.get("_buffers")  # nn/modules/module.py:2030 in __setattr__ (HINT: type dict)
    __guard_hit = __guard_hit and not ___dict_contains('count', L['self'].__dict__['_buffers'])  # if isinstance(value, Buffer) or buffers is not None and name in buffers:  # nn/modules/module.py:2031 in __setattr__
    __guard_hit = __guard_hit and check_tensor(L['self'].__dict__['_buffers']['var'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[8], stride=[1])  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_dynamic_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_weak_dynamic_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_unbacked_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_strict_unbacked_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_static_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and check_no_aliasing(L['obs'], L['self'].__dict__['_buffers']['var'], L['self'].__dict__['_buffers']['mean'])
    __guard_hit = __guard_hit and check_tensor(L['self'].__dict__['_buffers']['mean'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[8], stride=[1])  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_dynamic_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_weak_dynamic_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_unbacked_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_strict_unbacked_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_static_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and ___check_type_id(L['self'].__dict__['_modules'], 139752148143776), type=<class 'dict'>  # modules = self.__dict__.get("_modules")  # nn/modules/module.py:2001 in __setattr__ (HINT: type dict)
    __guard_hit = __guard_hit and not ___dict_contains('count', L['self'].__dict__['_modules'])  # elif modules is not None and name in modules:  # nn/modules/module.py:2018 in __setattr__
    __guard_hit = __guard_hit and ___check_type_id(L['self'].__dict__['_parameters'], 139752148143776), type=<class 'dict'>  # params = self.__dict__.get("_parameters")  # nn/modules/module.py:1980 in __setattr__ (HINT: type dict)
    __guard_hit = __guard_hit and not ___dict_contains('count', L['self'].__dict__['_parameters'])  # elif params is not None and name in params:  # nn/modules/module.py:1993 in __setattr__
    __guard_hit = __guard_hit and check_tensor(L['obs'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[64, 8], stride=[8, 1])  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_dynamic_indices') == False         # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_weak_dynamic_indices') == False    # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_unbacked_indices') == False        # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_strict_unbacked_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_static_indices') == False          # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and ___check_obj_id(G['__builtins_dict___4']['super'], 139752148166336), type=<class 'super'>  # super().__setattr__(name, value)  # nn/modules/module.py:2074 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__builtins_dict___4']['isinstance'], 139752139854432), type=<class 'builtin_function_or_method'>  # if isinstance(value, Parameter):  # nn/modules/module.py:1981 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'], 139751617460832), type=<class 'module'>  # if isinstance(value, Parameter):  # nn/modules/module.py:1981 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'].Buffer, 94445870484512), type=<class 'torch.nn.parameter.Buffer'>  # if isinstance(value, Buffer) or buffers is not None and name in buffers:  # nn/modules/module.py:2031 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'].Module, 94445872816352), type=<class 'torch.nn.modules.module.Module'>  # if isinstance(value, Module):  # nn/modules/module.py:2002 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'].Parameter, 94445870592512), type=<class 'torch.nn.parameter.Parameter'>  # if isinstance(value, Parameter):  # nn/modules/module.py:1981 in __setattr__
    __guard_hit = __guard_hit and L['self'].__dict__['_buffers'] is L['self']._buffers          # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and L['self'].__dict__['_modules'] is L['self']._modules          # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and L['self'].__dict__['_parameters'] is L['self']._parameters    # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    return __guard_hit

# Note: please refer to the graph code in __compiled_fn_5_f989dbc6_a48d_4866_b377_d4b4098cf178*.py.
# Captured Graph: Dynamo generated graph (debuggable when using eager backend).
# Joint graph: joint forward+backward graph from aot autograd.
# Forward graph: forward graph from aot autograd (debuggable when using aot_eager backend).
# Backward graph: backward graph from aot autograd (debuggable when using aot_eager backend).
# AFTER XXX: graph processed by inductor (not debuggable).
def __compiled_fn_5_f989dbc6_a48d_4866_b377_d4b4098cf178(*args, **kwargs):
    pass

def __transformed_code_2_for_forward(self, obs):
    momentum = None # this line helps Python to generate bytecode with at least the same number of local variables as the original function
    tmp_3 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter
    tmp_4 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter()
    tmp_5 = self.__dict__['_buffers']
    tmp_6 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit
    __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit(tmp_4)
    graph_out_0 = __compiled_fn_5_f989dbc6_a48d_4866_b377_d4b4098cf178(self.
        __dict__['_buffers']['mean'], obs, tmp_5['var'])
    []
    tmp_2 = __import_torch_dot__dynamo_dot_utils.object_setattr_ignore_descriptor
    __import_torch_dot__dynamo_dot_utils.object_setattr_ignore_descriptor(self,
        'count', 3)
    []
    __temp_29 = []
    __temp_29.extend([])
    [__temp_29]
    return graph_out_0[0]


# Note: the following variables are used inside the guard function.
___check_tensors = '''None'''
___check_tensors_verbose = '''None'''
___check_global_state = '''<built-in method check of torch._C._dynamo.guards.GlobalStateGuard object at 0x7f1a740537b0>'''
___check_torch_function_mode_stack = '''<function make_torch_function_mode_stack_guard.<locals>.check_torch_function_mode_stack at 0x7f1a6f1ed620>'''
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
def __guard_1_for_forward(L, G, **___kwargs_ignored):
    __guard_hit = True
    __guard_hit = __guard_hit and torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None  # _dynamo/output_graph.py:1135 in init_ambient_guards
    __guard_hit = __guard_hit and ___check_global_state() against {"allow_bf16_reduce":0,"allow_fp16_reduce":0,"allow_tf32":false,"autocast_state":{"cached_enabled":true,"dtype":[15,5,5,15,5,5,15,15,5,5],"enabled":[false,false,false,false,false,false,false,false,false,false]},"default_dtype":6,"deterministic_algorithms":false,"deterministic_algorithms_warn_only":false,"grad_mode":false,"num_threads":2,"torch_function":true,"torch_function_all_disabled":false}
    __guard_hit = __guard_hit and ___check_torch_function_mode_stack()
    __guard_hit = __guard_hit and utils_device.CURRENT_DEVICE == None                           # _dynamo/output_graph.py:1122 in init_ambient_guards
    __guard_hit = __guard_hit and ___check_type_id(L['self'], 94445917633904), type=<class '__main__.RunningNormalizer'>  # if self.training:  # sample_models/module_counter.py:16 in forward (HINT: type RunningNormalizer)
    __guard_hit = __guard_hit and not ___dict_contains('__setattr__', L['self'].__dict__)       # self.count += 1  # sample_models/module_counter.py:17 in forward
    __guard_hit = __guard_hit and L['self'].count == 1                                          # self.count += 1  # sample_models/module_counter.py:17 in forward (HINT: torch.compile considers integer attributes of the nn.Module to be static. If you are observing recompilation, you might want to make this integer dynamic using torch._dynamo.config.allow_unspec_int_on_nn_module = True, or convert this integer into a tensor.)
    __guard_hit = __guard_hit and L['self'].training == True                                    # if self.training:  # sample_models/module_counter.py:16 in forward
    __guard_hit = __guard_hit and ___check_type_id(L['self'].__dict__['_buffers'], 139752148143776), type=<class 'dict'>  # buffers = self.__dict__.get("_buffers")  # nn/modules/module.py:2030 in __setattr__ (HINT: type dict)
    __guard_hit = __guard_hit and not ___dict_contains('count', L['self'].__dict__['_buffers'])  # if isinstance(value, Buffer) or buffers is not None and name in buffers:  # nn/modules/module.py:2031 in __setattr__
    __guard_hit = __guard_hit and check_tensor(L['self'].__dict__['_buffers']['var'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[8], stride=[1])  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_dynamic_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_weak_dynamic_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_unbacked_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_strict_unbacked_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_static_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and check_no_aliasing(L['obs'], L['self'].__dict__['_buffers']['var'], L['self'].__dict__['_buffers']['mean'])
    __guard_hit = __guard_hit and check_tensor(L['self'].__dict__['_buffers']['mean'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[8], stride=[1])  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_dynamic_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_weak_dynamic_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_unbacked_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_strict_unbacked_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_static_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and ___check_type_id(L['self'].__dict__['_modules'], 139752148143776), type=<class 'dict'>  # modules = self.__dict__.get("_modules")  # nn/modules/module.py:2001 in __setattr__ (HINT: type dict)
    __guard_hit = __guard_hit and not ___dict_contains('count', L['self'].__dict__['_modules'])  # elif modules is not None and name in modules:  # nn/modules/module.py:2018 in __setattr__
    __guard_hit = __guard_hit and ___check_type_id(L['self'].__dict__['_parameters'], 139752148143776), type=<class 'dict'>  # params = self.__dict__.get("_parameters")  # nn/modules/module.py:1980 in __setattr__ (HINT: type dict)
    __guard_hit = __guard_hit and not ___dict_contains('count', L['self'].__dict__['_parameters'])  # elif params is not None and name in params:  # nn/modules/module.py:1993 in __setattr__
    __guard_hit = __guard_hit and check_tensor(L['obs'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[64, 8], stride=[8, 1])  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_dynamic_indices') == False         # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_weak_dynamic_indices') == False    # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_unbacked_indices') == False        # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_strict_unbacked_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_static_indices') == False          # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and ___check_obj_id(G['__builtins_dict___2']['super'], 139752148166336), type=<class 'super'>  # super().__setattr__(name, value)  # nn/modules/module.py:2074 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__builtins_dict___2']['isinstance'], 139752139854432), type=<class 'builtin_function_or_method'>  # if isinstance(value, Parameter):  # nn/modules/module.py:1981 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'], 139751617460832), type=<class 'module'>  # if isinstance(value, Parameter):  # nn/modules/module.py:1981 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'].Buffer, 94445870484512), type=<class 'torch.nn.parameter.Buffer'>  # if isinstance(value, Buffer) or buffers is not None and name in buffers:  # nn/modules/module.py:2031 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'].Module, 94445872816352), type=<class 'torch.nn.modules.module.Module'>  # if isinstance(value, Module):  # nn/modules/module.py:2002 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'].Parameter, 94445870592512), type=<class 'torch.nn.parameter.Parameter'>  # if isinstance(value, Parameter):  # nn/modules/module.py:1981 in __setattr__
    __guard_hit = __guard_hit and L['self'].__dict__['_buffers'] is L['self']._buffers          # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and L['self'].__dict__['_modules'] is L['self']._modules          # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and L['self'].__dict__['_parameters'] is L['self']._parameters    # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    return __guard_hit

# Note: please refer to the graph code in __compiled_fn_3_89469d38_6f19_4d4d_9dc4_6400d49591f5*.py.
# Captured Graph: Dynamo generated graph (debuggable when using eager backend).
# Joint graph: joint forward+backward graph from aot autograd.
# Forward graph: forward graph from aot autograd (debuggable when using aot_eager backend).
# Backward graph: backward graph from aot autograd (debuggable when using aot_eager backend).
# AFTER XXX: graph processed by inductor (not debuggable).
def __compiled_fn_3_89469d38_6f19_4d4d_9dc4_6400d49591f5(*args, **kwargs):
    pass

def __transformed_code_1_for_forward(self, obs):
    momentum = None # this line helps Python to generate bytecode with at least the same number of local variables as the original function
    tmp_3 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter
    tmp_4 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter()
    tmp_5 = self.__dict__['_buffers']
    tmp_6 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit
    __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit(tmp_4)
    graph_out_0 = __compiled_fn_3_89469d38_6f19_4d4d_9dc4_6400d49591f5(self.
        __dict__['_buffers']['mean'], obs, tmp_5['var'])
    []
    tmp_2 = __import_torch_dot__dynamo_dot_utils.object_setattr_ignore_descriptor
    __import_torch_dot__dynamo_dot_utils.object_setattr_ignore_descriptor(self,
        'count', 2)
    []
    __temp_19 = []
    __temp_19.extend([])
    [__temp_19]
    return graph_out_0[0]


# Note: the following variables are used inside the guard function.
___check_tensors = '''None'''
___check_tensors_verbose = '''None'''
___check_global_state = '''<built-in method check of torch._C._dynamo.guards.GlobalStateGuard object at 0x7f1a6f5d0f70>'''
___check_torch_function_mode_stack = '''<function make_torch_function_mode_stack_guard.<locals>.check_torch_function_mode_stack at 0x7f1a6f36f2e0>'''
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
def __guard_0_for_forward(L, G, **___kwargs_ignored):
    __guard_hit = True
    __guard_hit = __guard_hit and torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None  # _dynamo/output_graph.py:1135 in init_ambient_guards
    __guard_hit = __guard_hit and ___check_global_state() against {"allow_bf16_reduce":0,"allow_fp16_reduce":0,"allow_tf32":false,"autocast_state":{"cached_enabled":true,"dtype":[15,5,5,15,5,5,15,15,5,5],"enabled":[false,false,false,false,false,false,false,false,false,false]},"default_dtype":6,"deterministic_algorithms":false,"deterministic_algorithms_warn_only":false,"grad_mode":false,"num_threads":2,"torch_function":true,"torch_function_all_disabled":false}
    __guard_hit = __guard_hit and ___check_torch_function_mode_stack()
    __guard_hit = __guard_hit and utils_device.CURRENT_DEVICE == None                           # _dynamo/output_graph.py:1122 in init_ambient_guards
    __guard_hit = __guard_hit and ___check_type_id(L['self'], 94445917633904), type=<class '__main__.RunningNormalizer'>  # if self.training:  # sample_models/module_counter.py:16 in forward (HINT: type RunningNormalizer)
    __guard_hit = __guard_hit and not ___dict_contains('__setattr__', L['self'].__dict__)       # self.count += 1  # sample_models/module_counter.py:17 in forward
    __guard_hit = __guard_hit and L['self'].count == 0                                          # self.count += 1  # sample_models/module_counter.py:17 in forward (HINT: torch.compile considers integer attributes of the nn.Module to be static. If you are observing recompilation, you might want to make this integer dynamic using torch._dynamo.config.allow_unspec_int_on_nn_module = True, or convert this integer into a tensor.)
    __guard_hit = __guard_hit and L['self'].training == True                                    # if self.training:  # sample_models/module_counter.py:16 in forward
    __guard_hit = __guard_hit and ___check_type_id(L['self'].__dict__['_buffers'], 139752148143776), type=<class 'dict'>  # buffers = self.__dict__.get("_buffers")  # nn/modules/module.py:2030 in __setattr__ (HINT: type dict)
    __guard_hit = __guard_hit and not ___dict_contains('count', L['self'].__dict__['_buffers'])  # if isinstance(value, Buffer) or buffers is not None and name in buffers:  # nn/modules/module.py:2031 in __setattr__
    __guard_hit = __guard_hit and check_tensor(L['self'].__dict__['_buffers']['var'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[8], stride=[1])  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_dynamic_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_weak_dynamic_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_unbacked_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_strict_unbacked_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['var'], '_dynamo_static_indices') == False  # self.var.lerp_(obs.var(dim=0), momentum)  # sample_models/module_counter.py:20 in forward
    __guard_hit = __guard_hit and check_no_aliasing(L['obs'], L['self'].__dict__['_buffers']['var'], L['self'].__dict__['_buffers']['mean'])
    __guard_hit = __guard_hit and check_tensor(L['self'].__dict__['_buffers']['mean'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[8], stride=[1])  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_dynamic_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_weak_dynamic_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_unbacked_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_strict_unbacked_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['self'].__dict__['_buffers']['mean'], '_dynamo_static_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and ___check_type_id(L['self'].__dict__['_modules'], 139752148143776), type=<class 'dict'>  # modules = self.__dict__.get("_modules")  # nn/modules/module.py:2001 in __setattr__ (HINT: type dict)
    __guard_hit = __guard_hit and not ___dict_contains('count', L['self'].__dict__['_modules'])  # elif modules is not None and name in modules:  # nn/modules/module.py:2018 in __setattr__
    __guard_hit = __guard_hit and ___check_type_id(L['self'].__dict__['_parameters'], 139752148143776), type=<class 'dict'>  # params = self.__dict__.get("_parameters")  # nn/modules/module.py:1980 in __setattr__ (HINT: type dict)
    __guard_hit = __guard_hit and not ___dict_contains('count', L['self'].__dict__['_parameters'])  # elif params is not None and name in params:  # nn/modules/module.py:1993 in __setattr__
    __guard_hit = __guard_hit and check_tensor(L['obs'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[64, 8], stride=[8, 1])  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_dynamic_indices') == False         # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_weak_dynamic_indices') == False    # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_unbacked_indices') == False        # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_strict_unbacked_indices') == False  # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and hasattr(L['obs'], '_dynamo_static_indices') == False          # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and ___check_obj_id(G['__builtins_dict___0']['super'], 139752148166336), type=<class 'super'>  # super().__setattr__(name, value)  # nn/modules/module.py:2074 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__builtins_dict___0']['isinstance'], 139752139854432), type=<class 'builtin_function_or_method'>  # if isinstance(value, Parameter):  # nn/modules/module.py:1981 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'], 139751617460832), type=<class 'module'>  # if isinstance(value, Parameter):  # nn/modules/module.py:1981 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'].Buffer, 94445870484512), type=<class 'torch.nn.parameter.Buffer'>  # if isinstance(value, Buffer) or buffers is not None and name in buffers:  # nn/modules/module.py:2031 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'].Module, 94445872816352), type=<class 'torch.nn.modules.module.Module'>  # if isinstance(value, Module):  # nn/modules/module.py:2002 in __setattr__
    __guard_hit = __guard_hit and ___check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'].Parameter, 94445870592512), type=<class 'torch.nn.parameter.Parameter'>  # if isinstance(value, Parameter):  # nn/modules/module.py:1981 in __setattr__
    __guard_hit = __guard_hit and L['self'].__dict__['_buffers'] is L['self']._buffers          # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and L['self'].__dict__['_modules'] is L['self']._modules          # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    __guard_hit = __guard_hit and L['self'].__dict__['_parameters'] is L['self']._parameters    # self.mean.lerp_(obs.mean(dim=0), momentum)  # sample_models/module_counter.py:19 in forward
    return __guard_hit

# Note: please refer to the graph code in __compiled_fn_1_29cf7044_54dd_4be1_867f_c13f9cfad4fa*.py.
# Captured Graph: Dynamo generated graph (debuggable when using eager backend).
# Joint graph: joint forward+backward graph from aot autograd.
# Forward graph: forward graph from aot autograd (debuggable when using aot_eager backend).
# Backward graph: backward graph from aot autograd (debuggable when using aot_eager backend).
# AFTER XXX: graph processed by inductor (not debuggable).
def __compiled_fn_1_29cf7044_54dd_4be1_867f_c13f9cfad4fa(*args, **kwargs):
    pass

def __transformed_code_0_for_forward(self, obs):
    momentum = None # this line helps Python to generate bytecode with at least the same number of local variables as the original function
    tmp_3 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter
    tmp_4 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter()
    tmp_5 = self.__dict__['_buffers']
    tmp_6 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit
    __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit(tmp_4)
    graph_out_0 = __compiled_fn_1_29cf7044_54dd_4be1_867f_c13f9cfad4fa(self.
        __dict__['_buffers']['mean'], obs, tmp_5['var'])
    []
    tmp_2 = __import_torch_dot__dynamo_dot_utils.object_setattr_ignore_descriptor
    __import_torch_dot__dynamo_dot_utils.object_setattr_ignore_descriptor(self,
        'count', 1)
    []
    __temp_9 = []
    __temp_9.extend([])
    [__temp_9]
    return graph_out_0[0]


# Note: if there is a transformed version below, this function might well not be executed directly. Please check the transformed version if possible.
def forward(self, obs):
    if self.training:
        self.count += 1
        self.count = self.count
        momentum = 1.0 / self.count
        self.mean.lerp_(obs.mean(dim=0), momentum)
        self.var.lerp_(obs.var(dim=0), momentum)
        return (obs - self.mean) / (self.var + 1e-05).sqrt()
    else:
        return (obs - self.mean) / (self.var + 1e-05).sqrt()

def transformed_forward(self, obs):
    __local_dict = {"self": self, "obs": obs}
    __global_dict = globals()
    if __guard_3_for_forward(__local_dict, __global_dict):
        return __transformed_code_3_for_forward(self, obs)
    if __guard_2_for_forward(__local_dict, __global_dict):
        return __transformed_code_2_for_forward(self, obs)
    if __guard_1_for_forward(__local_dict, __global_dict):
        return __transformed_code_1_for_forward(self, obs)
    if __guard_0_for_forward(__local_dict, __global_dict):
        return __transformed_code_0_for_forward(self, obs)
    # Note: this function might well not be executed directly. It might well be transformed again, i.e. adding one more guards and transformed code.
    return forward(self, obs)

#============ end of forward ============#
