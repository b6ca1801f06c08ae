"""The parts of the HTML report: escaping and small cells, the SVG timeline, the section tables.

``deltaforensics.report.to_html`` assembles the page from them.
"""
