package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
)

func ReadSetting(ctx context.Context, q Querier, key string, v any) (bool, error) {
	var raw string
	err := q.QueryRowContext(ctx, `SELECT v FROM settings WHERE k = ?`, key).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		return false, CorruptRow("settings", "k", key, err)
	}
	return true, nil
}

func WriteSetting(ctx context.Context, q Querier, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, `INSERT INTO settings (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, key, string(b))
	return err
}
