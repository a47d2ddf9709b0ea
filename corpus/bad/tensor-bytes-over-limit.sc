# storcheck bad input: 512*513*4 = 1050624 bytes > max_tensor_bytes 1048576
t0 = zeros [512,513] f32
