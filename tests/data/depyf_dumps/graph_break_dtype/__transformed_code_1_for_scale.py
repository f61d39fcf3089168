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
