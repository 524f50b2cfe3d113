module gofix

go 1.19
