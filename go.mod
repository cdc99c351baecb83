module github.com/nlangdbg/nlangdbg

go 1.26.8
