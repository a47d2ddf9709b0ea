# storcheck bad input: bytes 0xff 0xfe (invalid UTF-8)
t0 = zeros [2] f32 ÿþ
