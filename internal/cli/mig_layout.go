package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// newMIGLayoutCmd is `gpusched mig-layout NODE LAYOUT` (admins): it
// declares a node's MIG layout, which its agent applies to its free GPUs.
func newMIGLayoutCmd() *cobra.Command {
	var none bool
	cmd := &cobra.Command{
		Use:   `mig-layout NODE ("gpu 0-3: 7x1g.10gb; gpu 4: 2x3g.40gb" | --none)`,
		Short: "Declare a node's MIG layout (admins): its agent applies it to GPUs as they become free",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var layout *string
			switch {
			case none && len(args) == 2:
				return fmt.Errorf("give a layout or --none, not both")
			case !none && len(args) == 1:
				return fmt.Errorf(`give the layout, e.g. "gpu 0-3: 7x1g.10gb; gpu 4: 2x3g.40gb" ("gpu N: whole" for no MIG), or --none`)
			case len(args) == 2:
				layout = &args[1]
			}
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			st, err := c.SetMIGLayout(cmd.Context(), args[0], layout)
			if err != nil {
				return withFlagNames(err, map[string]string{"layout": "LAYOUT"})
			}
			out := cmd.OutOrStdout()
			if st.Layout == nil {
				fmt.Fprintf(out, "%s: no MIG layout declared; its agent leaves MIG as it is\n", st.Node)
				return nil
			}
			fmt.Fprintf(out, "%s: MIG layout %s; its agent applies it to each GPU once it is free\n", st.Node, *st.Layout)
			if st.Report != "" {
				fmt.Fprintf(out, "last report: %s\n", st.Report)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&none, "none", false, "declare no layout: the agent leaves MIG as it is")
	return cmd
}
