package main

import (
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"

	pb "cuzkapi/cuzkv1"
)

// The 2 KiB PoRep parameter set, made by `cuzk setup` before the daemons start.
const porep2KiB = "porep-2k"

// preloadEvict: PreloadSRS / EvictSRS load and free a parameter set in every gpud.
func (s *session) preloadEvict() {
	const name = "srs"
	preload := func(id string) (*pb.PreloadSrsResponse, error) {
		ctx, cancel := deadline(proveLimit)
		defer cancel()
		r, err := s.api.PreloadSRS(ctx, &pb.PreloadSrsRequest{CircuitId: id})
		if err == nil {
			fmt.Printf("  PreloadSRS(%s): already_loaded=%v load_time=%dms\n", id, r.AlreadyLoaded, r.LoadTimeMs)
		} else {
			fmt.Printf("  PreloadSRS(%s): error %v\n", id, err)
		}
		return r, err
	}
	evict := func(id string) (*pb.EvictSrsResponse, error) {
		ctx, cancel := deadline(callLimit)
		defer cancel()
		r, err := s.api.EvictSRS(ctx, &pb.EvictSrsRequest{CircuitId: id})
		if err == nil {
			fmt.Printf("  EvictSRS(%s): was_loaded=%v freed=%dB\n", id, r.WasLoaded, r.FreedBytes)
		} else {
			fmt.Printf("  EvictSRS(%s): error %v\n", id, err)
		}
		return r, err
	}

	_, err := preload(porep2KiB)
	s.c.expect(name+": PreloadSRS "+porep2KiB, err == nil, "%v", err)
	p, err := preload(porep2KiB)
	s.c.expect(name+": PreloadSRS again: already_loaded", err == nil && p.AlreadyLoaded, "%v %v", err, p)
	e, err := evict(porep2KiB)
	s.c.expect(name+": EvictSRS: was_loaded, bytes freed", err == nil && e.WasLoaded && e.FreedBytes > 0, "%v %v", err, e)
	e, err = evict(porep2KiB)
	s.c.expect(name+": EvictSRS again: was_loaded false", err == nil && !e.WasLoaded, "%v %v", err, e)
	_, err = preload("no-such-circuit")
	s.c.expectCode(name+": PreloadSRS of an unknown circuit -> InvalidArgument", err, codes.InvalidArgument, "")
}

func (s *session) status() {
	const name = "status"
	ctx, cancel := deadline(callLimit)
	defer cancel()
	r, err := s.api.GetStatus(ctx, &pb.GetStatusRequest{})
	if err != nil {
		s.c.fail(name, "%v", err)
		return
	}
	gpus := make([]string, 0, len(r.Gpus))
	for _, g := range r.Gpus {
		gpus = append(gpus, fmt.Sprintf("%d:%q vram %d/%dB job %q %q", g.Ordinal, g.Name, g.VramFreeBytes,
			g.VramTotalBytes, g.CurrentJobId, g.CurrentProofKind))
	}
	queues := make([]string, 0, len(r.Queues))
	kindsNamed := true
	for _, q := range r.Queues {
		queues = append(queues, fmt.Sprintf("%s %d pending %d running", q.ProofKind, q.Pending, q.InProgress))
		kindsNamed = kindsNamed && q.ProofKind != ""
	}
	srs := make([]string, 0, len(r.LoadedSrs))
	for _, l := range r.LoadedSrs {
		srs = append(srs, fmt.Sprintf("%s %v %dB users %d", l.CircuitId, l.Tier, l.SizeBytes, l.RefCount))
	}
	fmt.Printf("  GetStatus: gpus [%s] srs [%s] queues [%s] completed=%d failed=%d uptime=%ds pinned=%d/%dB\n",
		strings.Join(gpus, "; "), strings.Join(srs, "; "), strings.Join(queues, "; "), r.TotalProofsCompleted,
		r.TotalProofsFailed, r.UptimeSeconds, r.PinnedMemoryBytes, r.PinnedMemoryLimitBytes)

	s.c.expect(name+": at least one GPU", len(r.Gpus) >= 1, "%d", len(r.Gpus))
	s.c.expect(name+": uptime", r.UptimeSeconds > 0, "uptime_seconds %d after minutes of work", r.UptimeSeconds)
	s.c.expect(name+": total_proofs_completed counts the jobs completed here",
		r.TotalProofsCompleted >= uint64(len(s.completed)), "%d, fewer than the %d completed through this client",
		r.TotalProofsCompleted, len(s.completed))
	s.c.expect(name+": queues name their proof kind", kindsNamed, "a queue without proof_kind: [%s]",
		strings.Join(queues, "; "))
}

func (s *session) metrics() {
	const name = "metrics"
	ctx, cancel := deadline(callLimit)
	defer cancel()
	r, err := s.api.GetMetrics(ctx, &pb.GetMetricsRequest{})
	if err != nil {
		s.c.fail(name, "%v", err)
		return
	}
	fmt.Printf("  GetMetrics: %d bytes, %d lines\n", len(r.PrometheusText), strings.Count(r.PrometheusText, "\n"))
	s.c.expect(name+": Prometheus text with cuzk_proofs_completed_total",
		strings.Contains(r.PrometheusText, "# TYPE") && strings.Contains(r.PrometheusText, "cuzk_proofs_completed_total"),
		"the text lacks \"# TYPE\" or cuzk_proofs_completed_total:\n%s", head(r.PrometheusText, 2000))
}

func head(text string, n int) string {
	if len(text) <= n {
		return text
	}
	return text[:n] + "..."
}
