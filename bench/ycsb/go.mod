module kvorum/bench/ycsb

go 1.22

require (
	github.com/magiconair/properties v1.8.0
	github.com/pingcap/go-ycsb v1.0.3
)

require (
	github.com/HdrHistogram/hdrhistogram-go v1.1.2 // indirect
	github.com/gocql/gocql v0.0.0-20181124151448-70385f88b28b // indirect
	github.com/golang/snappy v0.0.4 // indirect
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed // indirect
	github.com/kr/pretty v0.3.1 // indirect
	github.com/mattn/go-runewidth v0.0.9 // indirect
	github.com/olekukonko/tablewriter v0.0.5 // indirect
	github.com/pingcap/errors v0.11.5-0.20211224045212-9687c2b0f87c // indirect
	go.uber.org/atomic v1.9.0 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)
