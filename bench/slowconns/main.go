// Command slowconns opens many connections that each send a request header
// and part of a body, then trickle the rest, as a client holding a server's
// resources would. After the hold it reports the server process's peak
// resident memory (VmHWM in /proc, Linux) and how many of the connections
// the server had answered or closed, then whether a normal request still
// gets through. Used by bench/slowconns.sh.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("addr", "", "server address, HOST:PORT")
	path := flag.String("path", "/", "request path")
	n := flag.Int("n", 600, "connections")
	sent := flag.Int("sent", 1<<20-1024, "body bytes sent at once on each connection")
	declared := flag.Int("declared", 1<<20, "Content-Length declared")
	hold := flag.Duration("hold", 40*time.Second, "how long to trickle")
	pid := flag.Int("pid", 0, "server process, for its memory")
	header := flag.String("header", "", "extra header line, Name: value")
	flag.Parse()

	var closed, refused atomic.Int64
	var wg sync.WaitGroup
	pad := strings.Repeat("x", *sent)
	for range *n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.DialTimeout("tcp", *addr, 5*time.Second)
			if err != nil {
				refused.Add(1)
				return
			}
			defer c.Close()
			extra := ""
			if *header != "" {
				extra = *header + "\r\n"
			}
			fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n", *path, *declared, extra)
			if _, err := io.WriteString(c, pad); err != nil {
				closed.Add(1)
				return
			}
			end := time.Now().Add(*hold)
			for time.Now().Before(end) {
				time.Sleep(2 * time.Second)
				if _, err := c.Write([]byte{'x'}); err != nil {
					closed.Add(1)
					return
				}
			}
		}()
	}
	time.Sleep(*hold / 2)
	peak := vmHWM(*pid)
	// A normal request while the slow ones hold on.
	client := &http.Client{Timeout: 10 * time.Second}
	start := time.Now()
	res, err := client.Get("http://" + *addr + "/")
	probe := "failed: " + fmt.Sprint(err)
	if err == nil {
		res.Body.Close()
		probe = fmt.Sprintf("%d in %s", res.StatusCode, time.Since(start).Round(time.Millisecond))
	}
	wg.Wait()
	fmt.Printf("connections %d, refused at connect %d, cut by the server %d\n", *n, refused.Load(), closed.Load())
	fmt.Printf("server peak RSS at half the hold: %s; at the end: %s\n", peak, vmHWM(*pid))
	fmt.Printf("a GET during the hold: %s\n", probe)
}

func vmHWM(pid int) string {
	if pid == 0 {
		return "?"
	}
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return "?"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
