module github.com/perfcounters/perfcounters

go 1.26
