package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/models"
)

func newTokenCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "token", Short: "Create, list and revoke personal and node API tokens"}

	var userEmail, nodeName, name string
	var ttl time.Duration
	create := &cobra.Command{
		Use:   "create (--user E [--name N] [--ttl 720h] | --node NAME)",
		Short: "Create a token and print only the token (shown once, stored hashed)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (userEmail == "") == (nodeName == "") {
				return errors.New("give exactly one of --user EMAIL or --node NAME")
			}
			return withDB(cmd, func(ctx context.Context, db *database) error {
				var plain string
				err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
					var tok *models.APIToken
					if nodeName != "" {
						node, err := models.EnsureNode(ctx, tx, nodeName)
						if err != nil {
							return err
						}
						if plain, tok, err = models.CreateNodeToken(ctx, tx, node.ID, cmp.Or(name, "node "+node.Name)); err != nil {
							return err
						}
					} else {
						u, err := models.GetUserByEmail(ctx, tx, userEmail)
						if err != nil {
							return fmt.Errorf("no user with email %s (create one with gpusched user create): %w", userEmail, err)
						}
						var exp *time.Time
						if ttl > 0 {
							t := time.Now().Add(ttl)
							exp = &t
						}
						if plain, tok, err = models.CreateUserToken(ctx, tx, u.ID, cmp.Or(name, "cli"), exp); err != nil {
							return err
						}
					}
					return models.Audit(ctx, tx, &models.AuditEntry{ActorTokenID: nil, Action: "token.create", TargetType: "token",
						TargetID: tok.Prefix, Details: map[string]any{"via": "cli", "name": tok.Name}})
				})
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(cmd.OutOrStdout(), plain)
				return err
			})
		},
	}
	create.Flags().StringVar(&userEmail, "user", "", "email of the user the token acts as")
	create.Flags().StringVar(&nodeName, "node", "", "name of the node (created if new) the token registers")
	create.Flags().StringVar(&name, "name", "", "a label for the token")
	create.Flags().DurationVar(&ttl, "ttl", 0, "expire after this long (personal tokens; 0 = never)")

	var listUser string
	var all bool
	list := &cobra.Command{
		Use:   "list [--user E] [--all]",
		Short: "List tokens (prefix, owner, created, last used)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withDB(cmd, func(ctx context.Context, db *database) error {
				f := models.TokenFilter{IncludeRevoked: all}
				if listUser != "" {
					u, err := models.GetUserByEmail(ctx, db.Bun, listUser)
					if err != nil {
						return fmt.Errorf("no user with email %s: %w", listUser, err)
					}
					f.UserID = &u.ID
				}
				toks, err := models.ListTokens(ctx, db.Bun, f)
				if err != nil {
					return err
				}
				owners, err := tokenOwners(ctx, db)
				if err != nil {
					return err
				}
				w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "PREFIX\tKIND\tOWNER\tNAME\tCREATED\tLAST USED\tSTATE")
				for _, t := range toks {
					kind, owner := "user", ""
					if t.NodeID != nil {
						kind, owner = "node", owners.nodes[*t.NodeID]
					} else {
						owner = owners.users[*t.UserID]
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Prefix, kind, owner, t.Name,
						t.CreatedAt.Local().Format(time.DateTime), when(t.LastUsedAt), tokenState(&t))
				}
				return w.Flush()
			})
		},
	}
	list.Flags().StringVar(&listUser, "user", "", "only this user's tokens")
	list.Flags().BoolVar(&all, "all", false, "include revoked tokens")

	revoke := &cobra.Command{
		Use:   "revoke PREFIX",
		Short: "Revoke a token by its prefix (as listed) or the token itself",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withDB(cmd, func(ctx context.Context, db *database) error {
				return db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
					tok, err := models.RevokeToken(ctx, tx, args[0], nil, time.Now())
					if err != nil {
						return err
					}
					fmt.Fprintln(cmd.OutOrStdout(), "revoked", tok.Prefix)
					return models.Audit(ctx, tx, &models.AuditEntry{Action: "token.revoke", TargetType: "token",
						TargetID: tok.Prefix, Details: map[string]any{"via": "cli"}})
				})
			})
		},
	}
	cmd.AddCommand(create, list, revoke)
	return cmd
}

func when(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return t.Local().Format(time.DateTime)
}

func tokenState(t *models.APIToken) string {
	switch {
	case t.RevokedAt != nil:
		return "revoked"
	case t.ExpiresAt != nil && time.Now().After(*t.ExpiresAt):
		return "expired"
	}
	return "active"
}

// owners names the users and nodes tokens belong to.
type owners struct{ users, nodes map[int64]string }

func tokenOwners(ctx context.Context, db *database) (owners, error) {
	o := owners{users: map[int64]string{}, nodes: map[int64]string{}}
	users, err := models.ListUsers(ctx, db.Bun)
	if err != nil {
		return o, err
	}
	for _, u := range users {
		o.users[u.ID] = u.Email
	}
	nodes, err := models.ListNodes(ctx, db.Bun)
	if err != nil {
		return o, err
	}
	for _, n := range nodes {
		o.nodes[n.ID] = n.Name
	}
	return o, nil
}
