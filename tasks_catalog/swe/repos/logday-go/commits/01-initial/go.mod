module example.com/logday

go 1.19
