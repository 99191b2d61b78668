module github.com/perfcounters/perfcounters

go 1.26.0

require golang.org/x/sys v0.49.0

require github.com/klauspost/compress v1.20.3
