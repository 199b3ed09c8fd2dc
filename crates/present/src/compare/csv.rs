//! The comparison as one wide CSV table (`compare.csv`, `upfbench compare --csv`): a row per
//! payload of any section, a column per report, section and figure, headed
//! `<label> <section> <figure>` (`open5gs UL Tx Gbps`, `eupf both NDR Mpps`); figures as
//! plain numbers (a search's marks are in its `status` columns); an empty field where a
//! report has no figure. Fields are quoted per RFC 4180 when needed.

use super::Comparison;

/// The comparison as CSV: [`Comparison::csv_table`] rendered.
pub fn render(c: &Comparison) -> String {
    c.csv_table().to_csv()
}
