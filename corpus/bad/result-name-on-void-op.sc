# storcheck bad input: add_ returns nothing but has 'tN ='
t0 = zeros [2] f32
t1 = add_ t0 1
