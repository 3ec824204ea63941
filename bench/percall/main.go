// Command percall times commands called one after the other, in turn (one
// call of each per round, so that all see the same machine), and prints for
// each the median wall time and the median CPU time of the call's process
// (user + system, from wait4's rusage: the process alone, no shell around
// it). Each command's output goes to /dev/null; a failing call stops it.
//
//	go run ./bench/percall -n 200 'gpusched submit -g 1 -- true' 'sbatch --wrap true'
//
// It prints one line per command: "median-wall-ms median-cpu-ms command".
//go:build unix

package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 100, "calls of each command")
	flag.Parse()
	cmds := flag.Args()
	if len(cmds) == 0 || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: percall [-n N] 'command args…' …")
		os.Exit(2)
	}
	wall := make([][]float64, len(cmds))
	cpu := make([][]float64, len(cmds))
	for range *n {
		for i, c := range cmds {
			w, u, err := call(strings.Fields(c))
			if err != nil {
				fmt.Fprintf(os.Stderr, "percall: %s: %v\n", c, err)
				os.Exit(1)
			}
			wall[i], cpu[i] = append(wall[i], w), append(cpu[i], u)
		}
	}
	for i, c := range cmds {
		fmt.Printf("%.2f %.2f %s\n", median(wall[i]), median(cpu[i]), c)
	}
}

// call runs args once and returns its wall and CPU time in milliseconds.
func call(args []string) (float64, float64, error) {
	cmd := exec.Command(args[0], args[1:]...)
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, err
	}
	wall := time.Since(t0)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0, fmt.Errorf("no resource usage on this system")
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return ms(wall), ms(cpu), nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// median returns the middle value of xs (the mean of the two middle ones
// for an even count).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
