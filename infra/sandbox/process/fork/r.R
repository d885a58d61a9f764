# The R fork server (../forkServer.ts; the loop is native: rfork.c says how). Nothing may follow
# the .C call: R goes on reading this file, now the program, as Rscript reads /build/program.r.
invisible(dyn.load("/fork/rfork.so"))
invisible(.C("explora_fork_serve", tempdir()))
