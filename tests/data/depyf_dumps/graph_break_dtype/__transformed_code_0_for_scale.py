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
