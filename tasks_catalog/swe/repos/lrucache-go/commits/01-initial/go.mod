module example.com/lrucache

go 1.19
