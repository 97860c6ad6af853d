// Command etcd-bench is the load generator used to measure etcd next to vcorfu.
// It runs etcd's own benchmark tool (release v3.5.17) unchanged: subcommands such
// as "put" and "range" and their flags are those of that tool, for example
//
//	etcd-bench --endpoints 127.0.0.1:2389 --clients 8 --conns 8 put --total 10000 --val-size 256
package main

import (
	"fmt"
	"os"

	"go.etcd.io/etcd/v3/tools/benchmark/cmd"
)

func main() {
	if err := cmd.RootCmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
