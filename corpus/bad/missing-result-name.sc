# storcheck bad input: arange returns a tensor but has no 'tN ='
arange [3] f32
