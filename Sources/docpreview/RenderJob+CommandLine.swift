import PreviewCore

extension RenderJob {
    /// Reads `render INPUT -o OUT [options]` without ArgumentParser, whose reflection over the
    /// command's properties costs ~3 ms of a ~25 ms cold PDF page. Only the plain form is read:
    /// `--name value`, `--name=value` or `-o value`, each option once, one input, values in range.
    /// Anything else (help, a typo, a bad value, `--`) gives nil, and ArgumentParser, which stays the
    /// definition of the command line, parses it and words its errors. `CLITests` hold the two to
    /// the same results.
    init?(commandLine arguments: some Collection<String>) {
        guard arguments.first == RenderCommand.configuration.commandName else { return nil }
        var values = [String?](repeating: nil, count: RenderArgument.allCases.count)
        var inputs: [String] = []
        var json = false
        var rest = arguments.dropFirst()[...]
        while let argument = rest.popFirst() {
            if argument == "--json" {
                guard !json else { return nil }
                json = true
                continue
            }
            guard argument.hasPrefix("-") else {
                inputs.append(argument)
                continue
            }
            let name: Substring
            let value: String
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = argument[..<equals]
                value = String(argument[argument.index(after: equals)...])
            } else {
                guard let next = rest.popFirst(), !next.hasPrefix("-") else { return nil }
                name = argument[...]
                value = next
            }
            guard let option = RenderArgument(name: name), values[option.rawValue] == nil else { return nil }
            values[option.rawValue] = value
        }
        func text(_ option: RenderArgument) -> String? { values[option.rawValue] }
        /// nil when the option is there but not a number; .some(nil) when it is absent.
        func number<Value: LosslessStringConvertible>(_ option: RenderArgument) -> Value?? {
            guard let text = text(option) else { return .some(nil) }
            return Value(text).map { .some($0) }
        }
        guard inputs.count == 1, let output = text(.output),
            let page: Int? = number(.page), let width: Int? = number(.width), let height: Int? = number(.height),
            let quality: Int? = number(.quality), let timeout: Double? = number(.timeout)
        else { return nil }
        var format = Self.format(forOutput: output)
        if let name = text(.format) {
            guard let chosen = RenderRequest.Format(rawValue: name) else { return nil }
            format = chosen
        }
        let defaults = RenderRequest()
        let request = RenderRequest(
            page: page ?? defaults.page, width: width, height: height, format: format,
            quality: quality ?? defaults.quality)
        guard (try? RenderOptions.check(request)) != nil else { return nil }
        self.init(
            input: inputs[0], output: output, request: request,
            validation: ValidationSettings(
                documentType: text(.type), config: text(.config),
                maxSize: text(.maxSize), timeout: timeout),
            json: json)
    }
}

/// The options `render` declares that take a value, by every name they go by.
enum RenderArgument: Int, CaseIterable {
    case output, page, width, height, format, quality, type, config, maxSize, timeout

    init?(name: Substring) {
        switch name {
        case "-o", "--output": self = .output
        case "--page": self = .page
        case "--width": self = .width
        case "--height": self = .height
        case "--format": self = .format
        case "--quality": self = .quality
        case "--type": self = .type
        case "--config": self = .config
        case "--max-size": self = .maxSize
        case "--timeout": self = .timeout
        default: return nil
        }
    }
}
