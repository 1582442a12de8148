package peers

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// samples gathers one value per round for each measure and subject, and
// the raw cold starts.
type samples struct {
	perRound   map[string]map[string][]float64 // measure → subject → per round
	coldStarts map[string]map[string][]float64 // measure → subject → every cold start, ms
	firstLists map[string]map[string][]float64 // the same, timed to the first tools/list
	incomplete map[string]int                  // measure/server → first tools/list incomplete
	underLoad  map[string]map[string][]float64 // "p50@8" … → subject → per round, ms
}

func newSamples() *samples {
	return &samples{
		perRound:   map[string]map[string][]float64{},
		coldStarts: map[string]map[string][]float64{},
		firstLists: map[string]map[string][]float64{},
		incomplete: map[string]int{},
		underLoad:  map[string]map[string][]float64{},
	}
}

func put(m map[string]map[string][]float64, key, subject string, v float64) {
	if m[key] == nil {
		m[key] = map[string][]float64{}
	}
	m[key][subject] = append(m[key][subject], v)
}

func (s *samples) add(measure, subject string, v float64) { put(s.perRound, measure, subject, v) }

// Run builds the servers, measures them round by round and returns the
// report. Each round runs every phase on every server in order (A B C D),
// so a change in the machine's load falls on all of them alike.
func Run(cfg Config) (*Report, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	rep := newReport(cfg)
	start := time.Now()
	st, err := buildServers(&cfg)
	if err != nil {
		return nil, err
	}
	cfg.logf("built the servers into %s: %s", cfg.Work, time.Since(start).Round(time.Millisecond))
	var sink *otelSink
	if slices.Contains(cfg.Servers, VoxOTel) {
		if sink, err = startOTelSink(); err != nil {
			return nil, fmt.Errorf("bench-peers: the OTLP sink of %s: %w", VoxOTel, err)
		}
		st.otlp = sink.url
		defer sink.close()
	}
	rep.describeServers(st)
	servers := st.servers(cfg.Servers)
	s := newSamples()
	for round := 1; round <= cfg.Rounds; round++ {
		cfg.logf("round %d of %d (load average %s)", round, cfg.Rounds, loadAverage())
		phases := []struct {
			name string
			run  func(*Config, []*server, *samples) error
		}{
			{"cold starts, 1 tool", func(c *Config, v []*server, s *samples) error { return coldPhase(c, v, 1, measureColdStart, s) }},
			{"sequential calls over stdio", stdioCallPhase},
			{fmt.Sprintf("cold starts, %d tools", cfg.ManyTools), func(c *Config, v []*server, s *samples) error {
				return coldPhase(c, v, c.ManyTools, measureColdStartMany, s)
			}},
			{fmt.Sprintf("tools/list of %d tools", cfg.ManyTools), listPhase},
			{"streamable HTTP", httpPhase},
		}
		for _, p := range phases {
			start := time.Now()
			if err := p.run(&cfg, servers, s); err != nil {
				return nil, fmt.Errorf("round %d, %s: %w", round, p.name, err)
			}
			cfg.logf("  %s: %s", p.name, time.Since(start).Round(time.Millisecond))
		}
	}
	for _, srv := range servers {
		if srv.id == VoxMCP && cfg.LostCallStarts > 0 {
			cfg.logf("lost-call probe: %d cold starts with %d workspace tools per variant", cfg.LostCallStarts, cfg.ManyTools)
			probes, err := probeLostCalls(&cfg, srv)
			if err != nil {
				return nil, err
			}
			rep.LostCalls = probes
		}
	}
	if cfg.PairedRounds > 0 && len(cfg.InFlight) > 0 && slices.Contains(cfg.Servers, VoxMCP) {
		cfg.logf("paired CPU measure: %d rounds, %d in flight", cfg.PairedRounds, cfg.InFlight[0])
		paired, err := pairedCPU(&cfg, servers)
		if err != nil {
			return nil, err
		}
		rep.PairedCPU = paired
	}
	if sink != nil {
		// Every server has stopped, so what each flushed as it stopped
		// (docs/metrics.md §1) is in.
		rec := sink.close()
		rep.TelemetrySink = &rec
	}
	rep.finish(s)
	return rep, nil
}

// pairedCPU serves the floor and vox-mcp over HTTP at once and, for each
// vox-mcp tool and round, keeps cfg.InFlight[0] calls in flight on both
// for cfg.Throughput calls each, reading each process's CPU time per
// call: both meet the machine of the same seconds.
func pairedCPU(cfg *Config, servers []*server) ([]PairedCPU, error) {
	var floor, vox *server
	for _, srv := range servers {
		switch srv.id {
		case Floor:
			floor = srv
		case VoxMCP:
			vox = srv
		}
	}
	hf, err := startHTTP(floor, 1)
	if err != nil {
		return nil, err
	}
	defer hf.stop()
	hv, err := startHTTP(vox, 1)
	if err != nil {
		return nil, err
	}
	defer hv.stop()
	k := cfg.InFlight[0]
	var out []PairedCPU
	for _, t := range vox.tools {
		var fl, vx, ratio []float64
		for range cfg.PairedRounds {
			var fCPU, vCPU float64
			var fErr, vErr error
			var wg sync.WaitGroup
			wg.Go(func() { _, _, fCPU, fErr = throughput(hf.url, hf.cmd.Process.Pid, floor.tools[0], k, cfg.Throughput) })
			wg.Go(func() { _, _, vCPU, vErr = throughput(hv.url, hv.cmd.Process.Pid, t, k, cfg.Throughput) })
			wg.Wait()
			if err := errors.Join(fErr, vErr); err != nil {
				return nil, fmt.Errorf("paired CPU measure, %s: %w", t.subject, err)
			}
			if !(fCPU > 0) || !(vCPU > 0) {
				return nil, fmt.Errorf("paired CPU measure, %s: no CPU time read (floor %v µs, vox-mcp %v µs per call)", t.subject, fCPU, vCPU)
			}
			fl, vx, ratio = append(fl, fCPU), append(vx, vCPU), append(ratio, vCPU/fCPU)
		}
		out = append(out, PairedCPU{Subject: t.subject, InFlight: k, Calls: cfg.Throughput,
			FloorMicros: summarise(fl), VoxMicros: summarise(vx), Ratio: summarise(ratio)})
	}
	return out, nil
}

// firstSubject is the column of a server's measures that do not depend on
// the tool called: vox-mcp's are under its workspace tool.
func firstSubject(s *server) string { return s.tools[0].subject }

// coldPhase makes cfg.ColdStarts cold starts of every server with n tools,
// interleaved, and keeps each server's median of the round.
func coldPhase(cfg *Config, servers []*server, n int, measure string, out *samples) error {
	round := map[string][]float64{}
	for range cfg.ColdStarts {
		for _, srv := range servers {
			c, cs, err := startStdioReady(srv, n)
			if err != nil {
				return err
			}
			c.stop()
			subject := firstSubject(srv)
			round[subject] = append(round[subject], ms(cs.complete))
			put(out.coldStarts, measure, subject, ms(cs.complete))
			put(out.firstLists, measure, subject, ms(cs.first))
			if cs.incomplete {
				out.incomplete[measure+"/"+srv.id]++
			}
		}
	}
	for subject, v := range round {
		out.add(measure, subject, median(v))
	}
	return nil
}

// stdioCallPhase measures sequential calls of each tool over stdio.
func stdioCallPhase(cfg *Config, servers []*server, out *samples) error {
	for _, srv := range servers {
		c, _, err := startStdioReady(srv, 1)
		if err != nil {
			return err
		}
		for _, t := range srv.tools {
			stopProfile, err := profile(cfg, srv, c.cmd.Process.Pid, "stdio-calls-"+t.name)
			if err != nil {
				c.stop()
				return err
			}
			lat, err := sequential(c, t, cfg.Warmup, cfg.Calls)
			stopProfile()
			if err != nil {
				c.stop()
				return fmt.Errorf("%s over stdio: %w", srv.id, err)
			}
			out.add(measureCallStdioP50, t.subject, quantile(lat, 0.50))
			out.add(measureCallStdioP99, t.subject, quantile(lat, 0.99))
		}
		c.stop()
	}
	return nil
}

// listPhase measures tools/list of cfg.ManyTools tools over stdio, and
// the resident memory of a server serving them.
func listPhase(cfg *Config, servers []*server, out *samples) error {
	for _, srv := range servers {
		c, _, err := startStdioReady(srv, cfg.ManyTools)
		if err != nil {
			return err
		}
		err = func() error {
			defer c.stop()
			for range 3 { // warm-up
				if _, _, _, err := listTools(c); err != nil {
					return err
				}
			}
			stopProfile, err := profile(cfg, srv, c.cmd.Process.Pid, "tools-list")
			if err != nil {
				return err
			}
			defer stopProfile()
			lat := make([]time.Duration, cfg.ListCalls)
			size := 0
			for i := range lat {
				start := time.Now()
				names, n, done, err := listTools(c)
				if err != nil {
					return err
				}
				if !listsAll(names, cfg.ManyTools) {
					return fmt.Errorf("%w: %d listed", errNotListed, len(names))
				}
				lat[i], size = done.Sub(start), n
			}
			stopProfile()
			subject := firstSubject(srv)
			out.add(measureListLatency, subject, quantile(lat, 0.50))
			out.add(measureListBytes, subject, float64(size))
			time.Sleep(cfg.Settle)
			rss, err := residentBytes(c.cmd.Process.Pid)
			if err != nil {
				return err
			}
			out.add(measureRSSMany, subject, mib(rss))
			return nil
		}()
		if err != nil {
			return fmt.Errorf("%s with %d tools: %w", srv.id, cfg.ManyTools, err)
		}
	}
	return nil
}

// httpPhase measures, on one server process each: resident memory idle,
// sequential calls, calls at each in-flight level, then resident memory
// after that load.
func httpPhase(cfg *Config, servers []*server, out *samples) error {
	for _, srv := range servers {
		h, err := startHTTP(srv, 1)
		if err != nil {
			return err
		}
		err = func() error {
			defer h.stop()
			c, err := newHTTPConn(h.url)
			if err != nil {
				return err
			}
			defer c.close()
			if _, err := untilListed(listOnly{c}, 1, time.Now()); err != nil {
				return err
			}
			subject := firstSubject(srv)
			time.Sleep(cfg.Settle)
			rss, err := residentBytes(h.cmd.Process.Pid)
			if err != nil {
				return err
			}
			out.add(measureRSSIdle, subject, mib(rss))
			for _, t := range srv.tools {
				stopProfile, err := profile(cfg, srv, h.cmd.Process.Pid, "http-calls-"+t.name)
				if err != nil {
					return err
				}
				lat, err := sequential(c, t, cfg.Warmup, cfg.Calls)
				stopProfile()
				if err != nil {
					return err
				}
				out.add(measureCallHTTPP50, t.subject, quantile(lat, 0.50))
				out.add(measureCallHTTPP99, t.subject, quantile(lat, 0.99))
			}
			for _, k := range cfg.InFlight {
				for _, t := range srv.tools {
					stopProfile, err := profile(cfg, srv, h.cmd.Process.Pid, fmt.Sprintf("http-%d-in-flight-%s", k, t.name))
					if err != nil {
						return err
					}
					rate, lat, cpu, err := throughput(h.url, h.cmd.Process.Pid, t, k, cfg.Throughput)
					stopProfile()
					if err != nil {
						return fmt.Errorf("%d in flight: %w", k, err)
					}
					out.add(measureThroughput(k), t.subject, rate)
					out.add(measureServerCPU(k), t.subject, cpu)
					put(out.underLoad, fmt.Sprintf("p50@%d", k), t.subject, quantile(lat, 0.50))
					put(out.underLoad, fmt.Sprintf("p99@%d", k), t.subject, quantile(lat, 0.99))
				}
			}
			time.Sleep(cfg.Settle)
			rss, err = residentBytes(h.cmd.Process.Pid)
			if err != nil {
				return err
			}
			out.add(measureRSSLoaded, subject, mib(rss))
			return nil
		}()
		if err != nil {
			return fmt.Errorf("%s over HTTP: %w\n%s", srv.id, err, h.stderr)
		}
	}
	return nil
}

// listOnly is an initialized session whose initialize untilListed skips.
type listOnly struct{ *httpConn }

func (l listOnly) roundTrip(method string, params json.RawMessage) (message, int, time.Time, error) {
	if method == "initialize" {
		return message{}, 0, time.Now(), nil
	}
	return l.httpConn.roundTrip(method, params)
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// probeLostCalls reproduces the lost call of a cold start with many
// workspace tools: spawn, initialize, and at once tools/call a workspace
// tool, which must wait for the first scan and answer. Each variant is
// cfg.LostCallStarts starts.
func probeLostCalls(cfg *Config, srv *server) ([]LostCallProbe, error) {
	variants := []struct {
		name string
		env  []string
	}{
		{"default", nil},
		// Without the sandbox self-test, initialize answers sooner, so
		// the call meets the scan at another point.
		{"VOX_SKILL_SANDBOX=off", []string{"VOX_SKILL_SANDBOX=off"}},
	}
	var probes []LostCallProbe
	for _, v := range variants {
		p := LostCallProbe{Variant: v.name, Tools: cfg.ManyTools, Starts: cfg.LostCallStarts}
		for range cfg.LostCallStarts {
			cmd := srv.command(cfg.ManyTools, "")
			cmd.Env = append(cmd.Env, v.env...)
			c, err := startStdio(cmd)
			if err != nil {
				return nil, err
			}
			answer, err := firstCall(c)
			c.stop()
			switch {
			case err != nil && !isNotFound(answer):
				return nil, fmt.Errorf("lost-call probe: %w", err)
			case isNotFound(answer):
				p.Lost++
				if p.Example == "" {
					p.Example = answer
				}
			case answer == "ok":
				p.Answered++
			default:
				p.Other++
				if p.Example == "" {
					p.Example = answer
				}
			}
		}
		p.Rate = float64(p.Lost) / float64(p.Starts)
		probes = append(probes, p)
	}
	return probes, nil
}

// firstCall initializes c and calls add(1, 2) at once; it returns "ok" or
// what the server answered instead.
func firstCall(c *stdioConn) (string, error) {
	if err := initialize(c); err != nil {
		return "", err
	}
	m, _, _, err := c.roundTrip("tools/call", callParams("add", json.RawMessage(`{"a":1,"b":2}`)))
	if err != nil {
		if e, ok := err.(*rpcError); ok {
			return e.Error(), nil
		}
		return "", err
	}
	var r callResult
	if err := json.Unmarshal(m.Result, &r); err != nil {
		return "", err
	}
	if r.IsError || r.text() != "3" {
		return fmt.Sprintf("result %s (isError %v)", r.text(), r.IsError), nil
	}
	return "ok", nil
}

func isNotFound(answer string) bool { return strings.Contains(strings.ToLower(answer), "not found") }
