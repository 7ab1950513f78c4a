package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

// maxAttachmentBytesPerMerchant and maxAttachmentsPerMerchant bound the
// dispute evidence one merchant keeps in the state (variables so that
// tests can lower them).
var (
	MaxAttachmentBytesPerMerchant int64 = 100 << 20
	MaxAttachmentsPerMerchant     int64 = 1000
)

// checkAttachmentRoom refuses an upload that would take a merchant's
// stored evidence over its bounds. q is the transaction of the insert.
func checkAttachmentRoom(ctx context.Context, q store.Querier, merchant string, size int) error {
	var total, count int64
	if err := q.QueryRowContext(ctx, `SELECT COALESCE(SUM(size), 0), count(*) FROM dispute_attachments WHERE merchant_code = ?`,
		merchant).Scan(&total, &count); err != nil {
		return err
	}
	if count >= MaxAttachmentsPerMerchant || total+int64(size) > MaxAttachmentBytesPerMerchant {
		size := fmt.Sprintf("%d bytes", MaxAttachmentBytesPerMerchant)
		if MaxAttachmentBytesPerMerchant%(1<<20) == 0 {
			size = fmt.Sprintf("%d MiB", MaxAttachmentBytesPerMerchant>>20)
		}
		return edge.BadData(fmt.Sprintf("bad_request: this sandbox keeps at most %d attachments and %s of them per merchant; reset the sandbox to free them",
			MaxAttachmentsPerMerchant, size))
	}
	return nil
}

// storeAttachment keeps an uploaded file, within the merchant's bounds:
// the check and the insert share one IMMEDIATE transaction, so uploads in
// parallel (or from processes sharing the state) cannot overshoot.
func (s *Service) storeAttachment(ctx context.Context, id, merchant, kind string, data []byte, sha string) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := checkAttachmentRoom(ctx, tx, merchant, len(data)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO dispute_attachments (id, merchant_code, content_type, size, sha256, data, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, id, merchant, kind, len(data), sha, data, time.Now().UnixNano()); err != nil {
		return err
	}
	return tx.Commit()
}

// Attachment upload: multipart/form-data with one file field
// "attachment", PNG, JPEG or PDF by its first bytes (wire.AttachmentType,
// the sniffer the CLI uses), at most wire.MaxAttachmentBytes (5 MiB). Any
// refusal is 400 bad_data "bad_request". The bytes are kept with their
// hash, for the merchant that uploaded them.

var errUploadRefused = edge.BadData("bad_request")

func (s *Service) handleUploadAttachment(w http.ResponseWriter, r *http.Request, c caller) {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/form-data" {
		edge.WriteError(w, errUploadRefused)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, wire.MaxAttachmentBytes+edge.MultipartSlack)
	mr, err := r.MultipartReader()
	if err != nil {
		edge.WriteError(w, errUploadRefused)
		return
	}
	var data []byte
	found := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			edge.WriteError(w, errUploadRefused)
			return
		}
		if part.FormName() != "attachment" || found {
			_, _ = io.Copy(io.Discard, part)
			continue
		}
		data, err = io.ReadAll(io.LimitReader(part, wire.MaxAttachmentBytes+1))
		if err != nil {
			edge.WriteError(w, errUploadRefused)
			return
		}
		found = true
		if len(data) > wire.MaxAttachmentBytes {
			edge.WriteError(w, errUploadRefused)
			return
		}
	}
	if !found || len(data) == 0 {
		edge.WriteError(w, errUploadRefused)
		return
	}
	kind, ok := wire.AttachmentType(data[:min(len(data), 512)])
	if !ok {
		edge.WriteError(w, errUploadRefused)
		return
	}
	sum := sha256.Sum256(data)
	id := s.NewID(r.Context())
	if err := s.storeAttachment(r.Context(), id, c.merchant.Code, kind, data, hex.EncodeToString(sum[:])); err != nil {
		edge.WriteError(w, err)
		return
	}
	edge.WriteJSON(w, http.StatusOK, wire.AttachmentUpload{ID: id})
}

// checkAttachmentIDs tells whether every id is an attachment the merchant
// uploaded; q is the transaction when there is one.
func checkAttachmentIDs(ctx context.Context, q store.Querier, merchant string, ids []string) (bool, error) {
	for _, id := range ids {
		if !edge.ValidUUID(id) {
			return false, nil
		}
		var n int
		if err := q.QueryRowContext(ctx, `SELECT count(*) FROM dispute_attachments WHERE id = ? AND merchant_code = ?`,
			strings.ToLower(id), merchant).Scan(&n); err != nil {
			return false, err
		}
		if n == 0 {
			return false, nil
		}
	}
	return true, nil
}

// canonicalIDs copies ids, already checked, in lower case: the case they
// are stored and shown in, whatever case the client wrote them in.
func canonicalIDs(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, strings.ToLower(id))
	}
	return out
}
