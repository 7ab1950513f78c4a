package sandbox

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/reqlog"
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
				e.sb.Log.Add(&reqlog.PendingEntry{At: time.Now(), Region: "ae", Key: aeTest, Method: "GET",
					Path: "/api/v2/payments/3fa85f64-5717-4562-b3fc-2c963f66afa6", Status: 200, RespBody: body})
				if i%4096 == 4095 {
					e.sb.Log.Flush(context.Background())
				}
			}
			e.sb.Log.Flush(context.Background())
		})
	}
}
