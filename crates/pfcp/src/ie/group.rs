//! The macro behind every grouped IE and message body: one table of (field, cardinality, value
//! type, IE type) gives the struct, the decoder (with mandatory checks) and the encoder, which
//! emits in table order and then the kept `other_ies`.
//!
//! Cardinalities: `required` (M, exactly one kept), `optional` (C/O, at most one kept),
//! `one_or_more` (M, repeated), `any` (C/O, repeated). A second occurrence of a `required` or
//! `optional` IE is kept in `other_ies` rather than dropped.

macro_rules! ie_group {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                $field:ident : $card:ident ( $ty:ty ) = $ie:ident,
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $name {
            $(
                $(#[$fmeta])*
                pub $field: ie_group!(@field $card $ty),
            )*
            /// IEs not decoded here (unknown, vendor-specific, or repeated beyond the layout), in
            /// the order received; emitted after the others.
            pub other_ies: Vec<$crate::ie::RawIe>,
        }

        impl $name {
            /// Decodes the IEs of the group. `parent` names the grouped IE (None for a message)
            /// and `offset` locates it, for the errors about missing mandatory IEs.
            #[allow(unused_mut, unused_variables)]
            pub(crate) fn decode_ies(
                iter: $crate::ie::IeIter<'_>,
                parent: Option<$crate::ie::IeType>,
                offset: usize,
            ) -> $crate::error::Result<Self> {
                $( let mut $field: ie_group!(@local $card $ty) = Default::default(); )*
                let mut other_ies = Vec::new();
                for ie in iter {
                    let ie = ie?;
                    match ie.ie_type() {
                        $(
                            $crate::ie::IeType::$ie if ie_group!(@wants $card $field) => {
                                let v = <$ty as $crate::ie::IeValue>::decode(&ie)?;
                                ie_group!(@store $card $field v);
                            }
                        )*
                        _ => other_ies.push($crate::ie::RawIe::from_view(&ie)),
                    }
                }
                Ok($name {
                    $(
                        $field: ie_group!(@finish $card $field $ie parent offset),
                    )*
                    other_ies,
                })
            }

            /// Length of the encoded IEs.
            #[allow(unused_mut)]
            pub(crate) fn ies_len(&self) -> usize {
                let mut n = 0;
                $( ie_group!(@len $card self.$field, n); )*
                n + self.other_ies.iter().map(|r| r.wire_len()).sum::<usize>()
            }

            /// Encodes the IEs in table order, then `other_ies`.
            pub(crate) fn encode_ies(
                &self,
                w: &mut $crate::wire::Writer<'_>,
            ) -> core::result::Result<(), $crate::error::EmitError> {
                $( ie_group!(@emit $card self.$field, $ie, w); )*
                for r in &self.other_ies {
                    r.encode(w)?;
                }
                Ok(())
            }
        }
    };

    (@field required $ty:ty) => { $ty };
    (@field optional $ty:ty) => { Option<$ty> };
    (@field one_or_more $ty:ty) => { Vec<$ty> };
    (@field any $ty:ty) => { Vec<$ty> };

    (@local required $ty:ty) => { Option<$ty> };
    (@local optional $ty:ty) => { Option<$ty> };
    (@local one_or_more $ty:ty) => { Vec<$ty> };
    (@local any $ty:ty) => { Vec<$ty> };

    (@wants required $f:ident) => { $f.is_none() };
    (@wants optional $f:ident) => { $f.is_none() };
    (@wants one_or_more $f:ident) => { true };
    (@wants any $f:ident) => { true };

    (@store required $f:ident $v:ident) => { $f = Some($v) };
    (@store optional $f:ident $v:ident) => { $f = Some($v) };
    (@store one_or_more $f:ident $v:ident) => { $f.push($v) };
    (@store any $f:ident $v:ident) => { $f.push($v) };

    (@finish required $f:ident $ie:ident $parent:ident $offset:ident) => {
        match $f {
            Some(v) => v,
            None => {
                return Err($crate::error::DecodeError::missing($crate::ie::IeType::$ie, $parent, $offset))
            }
        }
    };
    (@finish one_or_more $f:ident $ie:ident $parent:ident $offset:ident) => {
        if $f.is_empty() {
            return Err($crate::error::DecodeError::missing($crate::ie::IeType::$ie, $parent, $offset));
        } else {
            $f
        }
    };
    (@finish optional $f:ident $ie:ident $parent:ident $offset:ident) => { $f };
    (@finish any $f:ident $ie:ident $parent:ident $offset:ident) => { $f };

    (@len required $e:expr, $n:ident) => { $n += $crate::ie::encoded_len(&$e) };
    (@len optional $e:expr, $n:ident) => {
        if let Some(v) = &$e { $n += $crate::ie::encoded_len(v) }
    };
    (@len one_or_more $e:expr, $n:ident) => {
        for v in &$e { $n += $crate::ie::encoded_len(v) }
    };
    (@len any $e:expr, $n:ident) => {
        for v in &$e { $n += $crate::ie::encoded_len(v) }
    };

    (@emit required $e:expr, $ie:ident, $w:ident) => {
        $crate::ie::encode_ie($crate::ie::IeType::$ie, &$e, $w)?
    };
    (@emit optional $e:expr, $ie:ident, $w:ident) => {
        if let Some(v) = &$e { $crate::ie::encode_ie($crate::ie::IeType::$ie, v, $w)? }
    };
    (@emit one_or_more $e:expr, $ie:ident, $w:ident) => {
        for v in &$e { $crate::ie::encode_ie($crate::ie::IeType::$ie, v, $w)? }
    };
    (@emit any $e:expr, $ie:ident, $w:ident) => {
        for v in &$e { $crate::ie::encode_ie($crate::ie::IeType::$ie, v, $w)? }
    };
}

/// Makes a group an IE value: its children are its value.
macro_rules! grouped_ie {
    ($name:ident, $ie:ident) => {
        impl $crate::ie::IeValue for $name {
            fn decode(ie: &$crate::ie::IeView<'_>) -> $crate::error::Result<Self> {
                Self::decode_ies(ie.children(), Some(ie.ie_type()), ie.offset())
            }
            fn value_len(&self) -> usize {
                self.ies_len()
            }
            fn encode_value(
                &self,
                w: &mut $crate::wire::Writer<'_>,
            ) -> core::result::Result<(), $crate::error::EmitError> {
                self.encode_ies(w)
            }
        }
        impl $crate::ie::TypedIe for $name {
            const TYPE: $crate::ie::IeType = $crate::ie::IeType::$ie;
        }
    };
}
