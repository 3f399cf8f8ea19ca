// Command stall measures what never-finished uploads can hold of a taskd
// server: it opens --uploads multipart requests to upload_files with the
// administrative key at once, each sending its headers and the first bytes
// of a file and then nothing, and reports how many the server answered at
// once (refused: code 24) and, for the others, how long each held its
// connection before the server ended it.
//
// Usage:
//
//	go run ./bench/stall --url http://127.0.0.1:8080/a/demo --key KEY --uploads 10
package main

import (
	"bufio"
	"crypto/md5"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

func main() {
	account := flag.String("url", "", "the account's URL, http://HOST:PORT/a/SLUG (loopback)")
	key := flag.String("key", "", "the account's administrative API key")
	uploads := flag.Int("uploads", 10, "never-finished uploads to open at once")
	limit := flag.Duration("limit", 5*time.Minute, "give up waiting for the server after this")
	flag.Parse()
	if err := run(*account, *key, *uploads, *limit); err != nil {
		fmt.Fprintln(os.Stderr, "stall:", err)
		os.Exit(1)
	}
}

// outcome is what became of one upload.
type outcome struct {
	refused bool          // answered at once with code 24
	held    time.Duration // how long the server kept it open otherwise
	status  string        // the answer's status line, if any
}

func run(account, key string, n int, limit time.Duration) error {
	u, err := url.Parse(account)
	if err != nil || u.Host == "" || key == "" {
		return fmt.Errorf("--url and --key are required")
	}
	if host, _, _ := net.SplitHostPort(u.Host); host != "127.0.0.1" && host != "localhost" && host != "::1" {
		return fmt.Errorf("the server must be on loopback")
	}
	q := "action=upload_files"
	sum := md5.Sum([]byte(q + key))
	path := u.Path + "/api/admin/v2/?" + q + "&hash=" + hex.EncodeToString(sum[:])
	head := "POST " + path + " HTTP/1.1\r\nHost: " + u.Host + "\r\nContent-Type: multipart/form-data; boundary=B\r\n" +
		"Content-Length: 100000000\r\n\r\n--B\r\nContent-Disposition: form-data; name=\"files[]\"; filename=\"stall.txt\"\r\n\r\nfirst bytes"
	out := make([]outcome, n)
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() { out[i] = stall(u.Host, head, limit) })
	}
	wg.Wait()
	var held []time.Duration
	refused := 0
	for _, o := range out {
		if o.refused {
			refused++
		} else {
			held = append(held, o.held)
		}
	}
	slices.Sort(held)
	fmt.Printf("uploads %d, refused at once %d, held %d", n, refused, len(held))
	if len(held) > 0 {
		fmt.Printf(" (for %v to %v)", held[0].Round(100*time.Millisecond), held[len(held)-1].Round(100*time.Millisecond))
	}
	fmt.Println()
	return nil
}

// stall sends head and waits, sending nothing more, until the server
// answers or closes.
func stall(host, head string, limit time.Duration) outcome {
	c, err := net.Dial("tcp", host)
	if err != nil {
		return outcome{status: err.Error()}
	}
	defer c.Close()
	start := time.Now()
	if _, err := io.WriteString(c, head); err != nil {
		return outcome{status: err.Error()}
	}
	c.SetReadDeadline(start.Add(limit))
	r := bufio.NewReader(c)
	res, err := http.ReadResponse(r, nil)
	o := outcome{held: time.Since(start)}
	if err != nil {
		o.status = err.Error()
		return o
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	o.status = res.Status
	o.refused = strings.Contains(string(body), `"status_code":24`) && time.Since(start) < time.Second
	io.Copy(io.Discard, r)
	o.held = time.Since(start)
	return o
}
