//! Why a model cannot be fitted: the data or the features do not allow it, or the solver
//! failed. Returned inside [`chessgraph_store::Error::Fit`], whose source it is.

/// Why a fit failed.
#[derive(Debug, thiserror::Error)]
pub enum FitError {
    /// No feature was given.
    #[error("no features given")]
    NoFeatures,
    /// A feature that is no numeric column of `features`.
    #[error("unknown feature `{name}` ({why}); numeric features columns: {known}")]
    UnknownFeature {
        /// The name given.
        name: String,
        /// Why it is not one (a bitboard, the row key, no such column).
        why: &'static str,
        /// The numeric columns, comma-separated.
        known: String,
    },
    /// A feature named twice.
    #[error("feature `{0}` is given twice")]
    Repeated(String),
    /// No analyzed position matches the selection.
    #[error("no positions match; run import and analyze first")]
    NothingAnalyzed,
    /// Analyzed positions exist, but none matches the condition.
    #[error("no positions match --where {filter:?} (of {analyzed} analyzed positions)")]
    NoMatch {
        /// The condition.
        filter: String,
        /// Analyzed positions in the database.
        analyzed: i64,
    },
    /// Positions match, but none has the target.
    #[error("{matched} positions match but none has {what}")]
    NoTarget {
        /// Matching positions.
        matched: usize,
        /// What is missing, in words.
        what: &'static str,
    },
    /// Too few training rows for the coefficients and their standard errors.
    #[error(
        "{rows} training rows are too few to fit {coefficients} coefficients with standard errors"
    )]
    TooFewRows {
        /// Training rows.
        rows: usize,
        /// Coefficients, the intercept included.
        coefficients: usize,
    },
    /// A feature constant over the selected rows.
    #[error(
        "feature `{name}` is constant ({value}) in the selected rows; drop it or change --where"
    )]
    Constant {
        /// The feature.
        name: String,
        /// Its one value.
        value: f64,
    },
    /// Linearly dependent features.
    #[error(
        "features {0} are linearly dependent in the selected rows (one is a combination of the \
         others); drop one"
    )]
    Dependent(String),
    /// A logistic fit whose training rows all have one outcome.
    #[error(
        "all {rows} training rows have the same outcome ({outcome}); a logistic fit needs both"
    )]
    OneOutcome {
        /// Training rows.
        rows: usize,
        /// The outcome they share (0 or 1).
        outcome: u8,
    },
    /// The solver gave coefficients that are not finite.
    #[error("{0} gave non-finite coefficients")]
    NonFinite(&'static str),
    /// Newton's method met a Hessian that is not positive definite.
    #[error("the Hessian is not positive definite (non-finite weights?)")]
    NotPositiveDefinite,
    /// linfa's logistic regression failed.
    #[error("logistic regression")]
    Linfa(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl FitError {
    /// Whether the user's data, selection or features are what does not allow the fit
    /// (every error but the solver's own failures).
    pub fn is_users(&self) -> bool {
        !matches!(
            self,
            FitError::NonFinite(_) | FitError::NotPositiveDefinite | FitError::Linfa(_)
        )
    }
}

impl From<FitError> for chessgraph_store::Error {
    fn from(e: FitError) -> chessgraph_store::Error {
        chessgraph_store::Error::Fit {
            users: e.is_users(),
            source: Box::new(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fit the user's selection does not allow is the user's (a server answers 400); the
    /// solver's failure is not.
    #[test]
    fn whose_fault_a_fit_error_is() {
        let users: chessgraph_store::Error = FitError::NoMatch {
            filter: "phase > 30".into(),
            analyzed: 12,
        }
        .into();
        assert!(users.is_users(), "{users:?}");
        assert!(chessgraph_store::Error::from(FitError::NoFeatures).is_users());
        let solver: chessgraph_store::Error = FitError::NotPositiveDefinite.into();
        assert!(!solver.is_users(), "{solver:?}");
        assert!(!chessgraph_store::Error::from(FitError::NonFinite("newton")).is_users());
        // The message is the fit module's, as before.
        assert_eq!(
            chessgraph_core::error::error_chain(&solver),
            "fit failed: the Hessian is not positive definite (non-finite weights?)"
        );
    }
}
