package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/models"
)

func newUserCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "user", Short: "Create and list users, set roles (e.g. to bootstrap the first admin)"}

	var email, name, role, unixUser string
	create := &cobra.Command{
		Use:   "create --email E [--name N] [--role admin|member] [--unix-user NAME]",
		Short: "Create a user; prints its id",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withDB(cmd, func(ctx context.Context, db *database) error {
				var u *models.User
				err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
					var err error
					if u, err = models.CreateUser(ctx, tx, email, name, role); err != nil {
						return err
					}
					if unixUser != "" {
						if err := models.SetUnixUser(ctx, tx, u.ID, unixUser, time.Now()); err != nil {
							return err
						}
					}
					return models.Audit(ctx, tx, &models.AuditEntry{Action: "user.create", TargetType: "user",
						TargetID: fmt.Sprint(u.ID), Details: map[string]any{"via": "cli", "role": u.Role}})
				})
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(cmd.OutOrStdout(), u.ID)
				return err
			})
		},
	}
	create.Flags().StringVar(&email, "email", "", "email address (required)")
	create.Flags().StringVar(&name, "name", "", "display name")
	create.Flags().StringVar(&role, "role", models.RoleMember, "admin or member")
	create.Flags().StringVar(&unixUser, "unix-user", "", "the Unix account whose processes on GPU hosts are this user's (gpusched run, srun)")
	_ = create.MarkFlagRequired("email")

	list := &cobra.Command{
		Use:   "list",
		Short: "List users",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withDB(cmd, func(ctx context.Context, db *database) error {
				users, err := models.ListUsers(ctx, db.Bun)
				if err != nil {
					return err
				}
				w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "ID\tEMAIL\tNAME\tROLE\tCREATED")
				for _, u := range users {
					fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\n", u.ID, u.Email, u.Name, u.Role, u.CreatedAt.Format("2006-01-02"))
				}
				return w.Flush()
			})
		},
	}

	var setEmail, setRole string
	setRoleCmd := &cobra.Command{
		Use:   "set-role --email E --role admin|member",
		Short: "Change a user's role",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withDB(cmd, func(ctx context.Context, db *database) error {
				return db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
					u, err := models.GetUserByEmail(ctx, tx, setEmail)
					if err != nil {
						return fmt.Errorf("no user with email %s: %w", setEmail, err)
					}
					if err := models.SetUserRole(ctx, tx, u.ID, setRole); err != nil {
						return err
					}
					return models.Audit(ctx, tx, &models.AuditEntry{Action: "user.set_role", TargetType: "user",
						TargetID: fmt.Sprint(u.ID), Details: map[string]any{"via": "cli", "from": u.Role, "to": setRole}})
				})
			})
		},
	}
	setRoleCmd.Flags().StringVar(&setEmail, "email", "", "the user's email (required)")
	setRoleCmd.Flags().StringVar(&setRole, "role", "", "admin or member (required)")
	_ = setRoleCmd.MarkFlagRequired("email")
	_ = setRoleCmd.MarkFlagRequired("role")

	cmd.AddCommand(create, list, setRoleCmd, newSetUnixUserCmd())
	return cmd
}

// withDB runs fn with a migrated database, closing it afterwards.
func withDB(cmd *cobra.Command, fn func(ctx context.Context, db *database) error) error {
	return withDatabase(cmd, true, fn)
}

// withDatabase runs fn with the database, migrated first if migrate is set.
func withDatabase(cmd *cobra.Command, migrate bool, fn func(ctx context.Context, db *database) error) error {
	cfg, logger, err := commandSetup(cmd)
	if err != nil {
		return err
	}
	db, err := openDatabase(cmd.Context(), cfg, logger, migrate)
	if err != nil {
		return err
	}
	defer db.close(logger)
	return fn(cmd.Context(), db)
}
