package sandbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// redeliver sends the notification of an earlier delivery again, now, to
// the same webhook with its current header: a new delivery (a new id,
// attempts from 1, retried like any other) with the same event, subject
// and payload. The webhook must still exist, and its URL must pass the
// rules today. It answers the new delivery as queued.
func (s *Sandbox) redeliver(ctx context.Context, deliveryID string) (*Delivery, error) {
	id, ok := canonicalID(deliveryID)
	if !ok {
		return nil, badData("invalid delivery id")
	}
	var old Delivery
	var payload []byte
	err := s.db.QueryRowContext(ctx, `SELECT kind, webhook_id, merchant_code, is_test, event, subject_id, payload
		FROM deliveries WHERE id = ?`, id).Scan(&old.Kind, &old.WebhookID, &old.MerchantCode, &old.IsTest,
		&old.Event, &old.SubjectID, &payload)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &apiError{status: 404, errorType: "not_found", message: "no such delivery"}
	}
	if err != nil {
		return nil, err
	}
	hook, err := getHook(ctx, s.db, old.Kind, old.MerchantCode, old.IsTest, old.WebhookID)
	if errors.Is(err, errHookNotFound) {
		return nil, &apiError{status: 409, errorType: "conflict",
			message: fmt.Sprintf("not resent: the %s webhook %s was removed since", old.Kind, old.WebhookID)}
	}
	if err != nil {
		return nil, err
	}
	if _, err := s.checkWebhookURL(ctx, hook.URL, false); err != nil {
		return nil, badData("not resent: the webhook URL no longer passes the rules: " + err.Error())
	}
	now := time.Now().UTC()
	del := &Delivery{ID: uuid.NewString(), Kind: old.Kind, WebhookID: hook.ID, MerchantCode: old.MerchantCode,
		IsTest: old.IsTest, URL: hook.URL, Event: old.Event, SubjectID: old.SubjectID, Status: deliveryPending,
		CreatedAt: now, UpdatedAt: now, Payload: payload}
	d := s.hooks
	if err := d.record(del, true); err != nil {
		return nil, err
	}
	out := *del // the worker owns del once it is queued
	if err := d.enqueue(deliveryJob{attempt: del, header: hook.Header}); err != nil {
		if errors.Is(err, errQueueFull) {
			d.fail(del, err.Error())
		}
		return nil, &apiError{status: 503, errorType: "unavailable", message: "not resent: " + err.Error()}
	}
	return &out, nil
}
