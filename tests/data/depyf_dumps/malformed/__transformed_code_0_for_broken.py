def __transformed_code_0_for_broken(x):
    return (x +
