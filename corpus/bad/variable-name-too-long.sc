# storcheck bad input: a 33-byte name, max_name_bytes is 32
aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa = zeros [2] f32
