import HTTPTypes

extension HTTPField.Name {
    /// `X-Content-Type-Options`: with `nosniff`, a browser takes a response for its declared type only.
    package static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
}
