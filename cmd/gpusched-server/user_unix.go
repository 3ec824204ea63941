package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// newSetUnixUserCmd maps a user to the Unix account whose processes on GPU
// hosts are theirs.
func newSetUnixUserCmd() *cobra.Command {
	var email, unixUser string
	cmd := &cobra.Command{
		Use:   "set-unix-user --email E --unix-user NAME",
		Short: "Map a user to their Unix account on GPU hosts (empty NAME removes it)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withDB(cmd, func(ctx context.Context, db *database) error {
				return db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
					u, err := models.GetUserByEmail(ctx, tx, email)
					if err != nil {
						return fmt.Errorf("no user with email %s: %w", email, err)
					}
					if other, err := models.UserByUnixUser(ctx, tx, unixUser); unixUser != "" && err == nil && other.ID != u.ID {
						return fmt.Errorf("the Unix user %s is already mapped to %s", unixUser, other.Email)
					}
					if err := models.SetUnixUser(ctx, tx, u.ID, unixUser, time.Now()); err != nil {
						return err
					}
					if err := models.Signal(ctx, tx, models.ChannelTokens, "user"); err != nil {
						return err
					}
					return models.Audit(ctx, tx, &models.AuditEntry{Action: "user.set_unix_user", TargetType: "user",
						TargetID: fmt.Sprint(u.ID), Details: map[string]any{"via": "cli", "unix_user": unixUser}})
				})
			})
		},
	}
	cmd.Flags().StringVar(&email, "email", "", "the user's email (required)")
	cmd.Flags().StringVar(&unixUser, "unix-user", "", "the Unix account name (required; \"\" removes the mapping)")
	_ = cmd.MarkFlagRequired("email")
	_ = cmd.MarkFlagRequired("unix-user")
	return cmd
}
