"""App tests: the Streamlit pages run headless with streamlit.testing (AppTest).
"""
