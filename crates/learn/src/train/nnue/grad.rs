//! One thread's gradient, with the first layer's rows kept sparse: a batch touches only
//! the rows of the features its positions have, so only those rows are cleared between
//! batches and summed across threads; every other row is exactly zero.

use super::params::Params;

/// The summed gradient of one thread's share of a batch.
#[derive(Clone, Debug)]
pub struct Gradient {
    /// The sums; first-layer rows not marked touched are zero.
    pub params: Params,
    /// Whether each first-layer row (feature) has been added to since the last clear.
    touched: Vec<bool>,
    /// The touched rows, in the order first touched.
    rows: Vec<u16>,
}

impl Gradient {
    /// A zero gradient for a model of `model`'s shape.
    pub fn new(model: &Params) -> Gradient {
        let inputs = model.features.inputs();
        Gradient {
            params: model.zeros_like(),
            touched: vec![false; inputs],
            rows: Vec::with_capacity(inputs),
        }
    }

    /// Back to zero, writing only the touched rows of the first layer.
    pub fn clear(&mut self) {
        let h = self.params.hidden;
        for &r in &self.rows {
            let r = usize::from(r);
            self.params.ft_w[r * h..(r + 1) * h].fill(0.0);
            self.touched[r] = false;
        }
        self.rows.clear();
        self.params.ft_b.fill(0.0);
        self.params.out_w.fill(0.0);
        self.params.out_b.fill(0.0);
    }

    /// Records that first-layer row `row` is about to be added to.
    #[inline(always)]
    pub fn touch(&mut self, row: usize) {
        if !self.touched[row] {
            self.touched[row] = true;
            self.rows.push(row as u16);
        }
    }

    /// Whether first-layer row `row` may be non-zero.
    #[inline(always)]
    pub fn is_touched(&self, row: usize) -> bool {
        self.touched[row]
    }

    /// The number of first-layer rows that may be non-zero.
    pub fn touched_rows(&self) -> usize {
        self.rows.len()
    }
}
