package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"

	"github.com/taskd/taskd/mail"
	"github.com/taskd/taskd/oauth"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/webhook"
)

func masterKeyNew(_ context.Context, e env, args []string) error {
	fs := newFlags("master-key new", "Print a new random master key (base64, 32 bytes), the first step of a rotation (docs/operations.md). Nothing is changed.")
	if err := parseFlags(fs, e, args); err != nil {
		return helpOK(err)
	}
	key := make([]byte, 32)
	rand.Read(key) // never fails (crypto/rand)
	return printJSON(e.stdout, map[string]string{"master_key": base64.StdEncoding.EncodeToString(key)})
}

func masterKeyReseal(ctx context.Context, e env, args []string) error {
	var sf storageFlags
	fs := newFlags("master-key reseal", "Seal every stored secret again with --master-key: the API keys, webhook secrets and passwords, token-signing keys and queued e-mail. Give the keys being replaced with --old-master-keys. Safe while servers run, once they all hold the new key (docs/operations.md).")
	sf.register(fs, e.stderr, withKey|withOldKeys)
	if err := parseFlags(fs, e, args, "old-master-keys"); err != nil {
		return helpOK(err)
	}
	db, sealer, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	counts, err := db.Reseal(ctx, func(kind, owner string, sealed []byte) ([]byte, error) {
		ad, err := sealAD(kind, owner)
		if err != nil {
			return nil, err
		}
		return sealer.Reseal(sealed, ad)
	})
	if err != nil {
		return fmt.Errorf("reseal (nothing was changed): %w", err)
	}
	out := map[string]any{"status": "ok"}
	for _, k := range sealedKinds {
		out[k.kind] = counts[k.kind]
	}
	return printJSON(e.stdout, out)
}

// sealAD is the additional data each kind of stored secret is sealed
// with, as the package that seals it defines.
func sealAD(kind, owner string) ([]byte, error) {
	switch kind {
	case store.SealedAPIKey:
		return []byte(owner), nil // secret.SealAPIKey binds the key to the slug
	case store.SealedWebhookSecret, store.SealedWebhookPass:
		id, err := strconv.ParseInt(owner, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("webhook of account %q: %w", owner, err)
		}
		return webhook.SealAD(id), nil
	case store.SealedSigningKey:
		return oauth.SigningKeyAD(), nil
	case store.SealedMail:
		return mail.SealAD(owner), nil
	}
	return nil, errors.New("unknown kind of sealed value " + kind)
}
