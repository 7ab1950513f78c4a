package sandbox

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkRequestLogWrite is the writer's cost per logged request: a
// payment read, as the throughput benchmark makes them.
func BenchmarkRequestLogWrite(b *testing.B) {
	for _, size := range []int{0, 1300} {
		b.Run(strings.Repeat("x", 0)+map[int]string{0: "empty", 1300: "1300B"}[size], func(b *testing.B) {
			e := newEnv(b, Options{StatePath: filepath.Join(b.TempDir(), "s.db")})
			body := []byte(`{"id":"` + strings.Repeat("a", max(0, size-8)) + `"}`)
			if size == 0 {
				body = nil
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e.sb.reqlog.add(&pendingEntry{at: time.Now(), region: "ae", key: aeTest, method: "GET",
					path: "/api/v2/payments/3fa85f64-5717-4562-b3fc-2c963f66afa6", status: 200, respBody: body})
				if i%4096 == 4095 {
					e.sb.reqlog.flush(context.Background())
				}
			}
			e.sb.reqlog.flush(context.Background())
		})
	}
}
