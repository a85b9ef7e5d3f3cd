/// What every page ladder writes shares: the document head with the common look.
enum HTMLPage {
    /// The start of a page, up to and including `<body>`: the title, and `style` after the
    /// rules every page shares.
    static func head(title: String, style: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <style>
        body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; background: #fafafa; }
        \(style)
        </style></head><body>

        """
    }
}
