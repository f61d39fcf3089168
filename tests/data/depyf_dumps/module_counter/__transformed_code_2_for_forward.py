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
