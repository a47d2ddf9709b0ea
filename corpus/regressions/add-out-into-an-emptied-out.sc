# storcheck program v1
# what: Note [out=] (impl/ops.cpp): an emptied out (shrink, R1) of other
#   sizes than the input is resized: its storage grows back (zero-filled
#   before its first element, R6; t3 at offset 2 of t2's storage) and the
#   kernel writes it. An emptied out of the input's sizes is not resized
#   (resize_output sees equal sizes) and the kernel would write into 0
#   bytes: undefined (S8), refused by every backend. An emptied input is
#   S8 too, whatever out.
# found: 2026-12-02 by probing add_out when it joined the language
t0 = arange [2,3] f32
t1 = zeros [4] f32
shrink t1
add_out t1 t0 1
t2 = zeros [3] f32
t3 = narrow t2 0 2 1
shrink t2
add_out t3 t0 1
t4 = zeros [2,3] f32
shrink t4
add_out t4 t0 1
t5 = zeros [6] f32
shrink t0
add_out t5 t0 1
